// A light parse of one EventChunk message (proto/trace.proto): its columns stay where they lie in
// the decompressed bytes, undecoded, for ChunkDecoder to read straight from there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "proto/trace.pb.h"

namespace pecan {

// Bytes inside the parsed message (or the view's own copy of it).
struct ByteSpan {
  const uint8_t* data = nullptr;
  size_t size = 0;

  const uint8_t* end() const { return data + size; }
};

class ChunkView {
 public:
  ChunkView() = default;
  // The spans point into the bytes parsed, or into the view itself.
  ChunkView(const ChunkView&) = delete;
  ChunkView& operator=(const ChunkView&) = delete;

  // Reads the EventChunk message `bytes`, which must outlive the view's use. False when protobuf
  // would not parse it. Only the top level is parsed, and the table entries; the packed columns
  // are kept as spans, not checked (ChunkDecoder::Start does). Bytes laid out otherwise than our
  // writer lays them (a column split in parts or unpacked, say) are parsed by protobuf and
  // serialized again, into the view's own buffer, as the writer would.
  bool Parse(std::string_view bytes);

  uint64_t first_event = 0;
  uint32_t count = 0;
  // Packed varints: uint32 for the runs, sizes and repeats, zig-zag sint64 for the deltas.
  ByteSpan thread_run_thread;
  ByteSpan thread_run_length;
  ByteSpan addr_delta;
  ByteSpan size;
  ByteSpan site_delta;
  ByteSpan repeats_before;
  // One byte per event.
  ByteSpan kind;
  ByteSpan flags;
  // Only the table entries (fields 10-13) are set.
  proto::EventChunk tables;

 private:
  // kRead: parsed. kOther: valid protobuf maybe, but laid out otherwise than our writer lays
  // out a chunk (left to protobuf). kBroken: not protobuf (truncated, a table entry that does
  // not parse).
  enum class Layout { kRead, kOther, kBroken };
  Layout ParseWriterLayout(std::string_view bytes);

  std::string canonical_;  // the chunk as protobuf serializes it, when read through protobuf
};

}  // namespace pecan
