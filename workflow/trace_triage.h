// One trace's part of `pecan triage`: read it (a damaged file becomes a status, not an abort),
// analyze it, and generate a clip for each finding, keeping only the small per-finding results
// so that memory stays bounded by the traces being worked on at once.
#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/por_index.h"
#include "analyzer/symbolizer.h"
#include "proto/clip.pb.h"
#include "schedgen/clip_builder.h"
#include "schedgen/schedule_generator.h"
#include "trace_format/error.h"
#include "trace_format/trace_reader.h"
#include "workflow/clip_picture.h"
#include "workflow/finding_merge.h"
#include "workflow/finding_summary.h"
#include "workflow/finding_view.h"

namespace pecan::workflow {

// Reads a whole trace like ReadTrace, but keeps the reader's warnings for this trace.
Trace ReadTraceKeepingWarnings(const std::string& path, std::vector<std::string>& warnings,
                               bool& complete);

// Each finding's clip is written to a new file in `clip_dir` (StoredClip::Spill).
TriagedTrace TriageTrace(const std::string& path, const AnalysisOptions& options,
                         const std::string& clip_dir);

}  // namespace pecan::workflow
