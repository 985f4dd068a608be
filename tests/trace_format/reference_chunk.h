// The column encoding of a chunk written the plain way, through protobuf's generated setters:
// what trace_format/chunk_builder.h must produce byte for byte, and hand-made chunks for tests.
#pragma once

#include <string>
#include <string_view>

#include "proto/trace.pb.h"
#include "trace_format/chunk_codec.h"
#include "trace_format/trace_reader.h"
#include "trace_format/version.h"

namespace pecan::testing {

// The events [begin, end) of `t` as a reader gives them, numbered from `first_event`: the
// repeats_before column only when some event has repeats before it.
EventBatch BatchOf(const Trace& t, size_t begin, size_t end, uint64_t first_event);

// `events`' columns as an EventChunk: first_event, count, thread runs, kinds, flags, sizes, the
// per-thread site deltas and the address deltas — per site in format 2, per thread in format 1
// (table entries are left to the caller).
proto::EventChunk ReferenceChunk(const EventBatch& events,
                                 uint32_t format_major = kTraceFormatMajor);

// Decodes the EventChunk message `bytes` as the reader does, with `decoder`: viewed
// (trace_format/chunk_view.h), then decoded whole. The bytes are copied into a buffer of exactly
// their size, so that AddressSanitizer sees any read past them. Throws PecanError, "<where>:
// chunk does not parse" when the view refuses them.
void DecodeChunkBytes(ChunkDecoder& decoder, std::string_view bytes, size_t thread_count,
                      size_t site_count, EventBatch& batch, const std::string& where,
                      uint32_t format_major = kTraceFormatMajor);
// The same for `chunk`, serialized.
void DecodeChunk(ChunkDecoder& decoder, const proto::EventChunk& chunk, size_t thread_count,
                 size_t site_count, EventBatch& batch, const std::string& where,
                 uint32_t format_major = kTraceFormatMajor);

}  // namespace pecan::testing
