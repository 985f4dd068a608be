// Builds the pecan.proto.Clip for one finding from its ClipPlan, field by field as
// proto/clip.proto describes them, ready for WriteClipFile (trace_format/clip_file.h).
#pragma once

#include <string>

#include "analyzer/finding.h"
#include "analyzer/lockset_table.h"
#include "proto/clip.pb.h"
#include "proto/report.pb.h"
#include "schedgen/schedule_generator.h"
#include "trace_format/trace.h"

namespace pecan {

// The finding as carried in clips: each event with its thread, kind, address, size, site and the
// addresses of the locks its thread held (LocksetTable::Of).
proto::Finding FindingToMessage(const Trace& trace, const LocksetTable& locksets,
                                const Finding& finding);

// `plan` must be ok. `trace_hash` is TraceContentHash of the trace file ("" for traces that
// never were a file). Sites: those the steps and the finding's events refer to, by trace site id.
proto::Clip ClipFromPlan(const Trace& trace, const LocksetTable& locksets, const Finding& finding,
                         const ClipPlan& plan, const std::string& trace_hash);

}  // namespace pecan
