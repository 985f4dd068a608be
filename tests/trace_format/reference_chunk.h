// The column encoding of a chunk written the plain way, through protobuf's generated setters:
// what trace_format/chunk_builder.h must produce byte for byte, and hand-made chunks for tests.
#pragma once

#include "proto/trace.pb.h"
#include "trace_format/trace_reader.h"
#include "trace_format/version.h"

namespace pecan::testing {

// `events`' columns as an EventChunk: first_event, count, thread runs, kinds, flags, sizes, the
// per-thread site deltas and the address deltas — per site in format 2, per thread in format 1
// (table entries are left to the caller).
proto::EventChunk ReferenceChunk(const EventBatch& events, uint32_t format_major = kTraceFormatMajor);

}  // namespace pecan::testing
