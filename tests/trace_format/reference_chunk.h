// The column encoding of a chunk written the plain way, through protobuf's generated setters:
// what trace_format/chunk_builder.h must produce byte for byte, and hand-made chunks for tests.
#pragma once

#include "proto/trace.pb.h"
#include "trace_format/trace_reader.h"

namespace pecan::testing {

// `events`' columns as an EventChunk: first_event, count, thread runs, kinds, flags, sizes and
// the per-thread address and site deltas (table entries are left to the caller).
proto::EventChunk ReferenceChunk(const EventBatch& events);

}  // namespace pecan::testing
