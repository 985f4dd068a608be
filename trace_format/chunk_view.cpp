// The light parse of an EventChunk: the top level by hand, protobuf for what the writer never
// writes.
#include "trace_format/chunk_view.h"

#include <climits>

#include "trace_format/wire.h"

namespace pecan {

bool ChunkView::Parse(std::string_view bytes) {
  if (bytes.size() > INT_MAX) return false;  // protobuf's limit
  switch (ParseWriterLayout(bytes)) {
    case Layout::kRead:
      return true;
    case Layout::kBroken:
      return false;
    case Layout::kOther:
      break;
  }
  // Protobuf says what the bytes mean; serialized again, they are laid out as the writer does.
  proto::EventChunk full;
  if (!full.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return false;
  full.DiscardUnknownFields();
  canonical_.clear();
  if (!full.SerializeToString(&canonical_)) return false;
  return ParseWriterLayout(canonical_) == Layout::kRead;
}

ChunkView::Layout ChunkView::ParseWriterLayout(std::string_view bytes) {
  using Chunk = proto::EventChunk;
  first_event = 0;
  count = 0;
  thread_run_thread = thread_run_length = addr_delta = size = site_delta = repeats_before = kind =
      flags = ByteSpan{};
  tables.Clear();
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint8_t* const end = p + bytes.size();
  uint32_t packed_seen = 0;  // a bit for each packed column's field number met
  // Protobuf reads a tag or a length as a 32-bit varint, of at most 5 bytes; past that, or for
  // field number 0, it decides.
  constexpr ptrdiff_t kMaxVarint32Bytes = 5;
  while (p != end) {
    const uint8_t* const tag_at = p;
    uint64_t tag;
    if (!wire::GetVarint(p, end, tag)) return Layout::kBroken;
    const uint64_t field = tag >> 3;
    const auto type = static_cast<uint8_t>(tag & 7);
    if (field == 0 || tag > UINT32_MAX || p - tag_at > kMaxVarint32Bytes) return Layout::kOther;
    uint64_t number = 0;
    ByteSpan value;
    switch (type) {
      case wire::kVarint:
        if (!wire::GetVarint(p, end, number)) return Layout::kBroken;
        break;
      case wire::kFixed64:
        if (end - p < 8) return Layout::kBroken;
        p += 8;
        break;
      case wire::kFixed32:
        if (end - p < 4) return Layout::kBroken;
        p += 4;
        break;
      case wire::kLengthDelimited: {
        const uint8_t* const length_at = p;
        uint64_t length;
        if (!wire::GetVarint(p, end, length)) return Layout::kBroken;
        if (p - length_at > kMaxVarint32Bytes) return Layout::kOther;
        if (length > static_cast<uint64_t>(end - p)) return Layout::kBroken;
        value = ByteSpan{p, static_cast<size_t>(length)};
        p += length;
        break;
      }
      default:  // groups, which protobuf still skips, and wire types that do not exist
        return Layout::kOther;
    }
    // Fields 1 and 2 are varints, the others length-delimited. Protobuf also reads a column
    // unpacked (a tag per value), and a known field of another wire type as an unknown one.
    if (field <= Chunk::kRepeatsBeforeFieldNumber &&
        type != (field <= Chunk::kCountFieldNumber ? wire::kVarint : wire::kLengthDelimited))
      return Layout::kOther;
    auto packed = [&](ByteSpan& column) {
      // A column met twice is one column in protobuf (the parts appended): left to protobuf.
      const uint32_t bit = uint32_t{1} << field;
      if ((packed_seen & bit) != 0) return Layout::kOther;
      packed_seen |= bit;
      column = value;
      return Layout::kRead;
    };
    // A table entry that does not parse fails the whole message in protobuf too.
    auto entry = [&](google::protobuf::MessageLite* message) {
      return message->ParseFromArray(value.data, static_cast<int>(value.size)) ? Layout::kRead
                                                                               : Layout::kBroken;
    };
    Layout layout = Layout::kRead;
    switch (field) {
      case Chunk::kFirstEventFieldNumber:
        first_event = number;
        break;
      case Chunk::kCountFieldNumber:
        count = static_cast<uint32_t>(number);  // a uint32 keeps the low 32 bits, as in protobuf
        break;
      case Chunk::kThreadRunThreadFieldNumber:
        layout = packed(thread_run_thread);
        break;
      case Chunk::kThreadRunLengthFieldNumber:
        layout = packed(thread_run_length);
        break;
      case Chunk::kAddrDeltaFieldNumber:
        layout = packed(addr_delta);
        break;
      case Chunk::kSizeFieldNumber:
        layout = packed(size);
        break;
      case Chunk::kSiteDeltaFieldNumber:
        layout = packed(site_delta);
        break;
      case Chunk::kRepeatsBeforeFieldNumber:
        layout = packed(repeats_before);
        break;
      case Chunk::kKindFieldNumber:  // a bytes field met twice: the last wins
        kind = value;
        break;
      case Chunk::kFlagsFieldNumber:
        flags = value;
        break;
      case Chunk::kNewThreadsFieldNumber:
        layout = entry(tables.add_new_threads());
        break;
      case Chunk::kNewSitesFieldNumber:
        layout = entry(tables.add_new_sites());
        break;
      case Chunk::kNewModulesFieldNumber:
        layout = entry(tables.add_new_modules());
        break;
      case Chunk::kNewNamesFieldNumber:
        layout = entry(tables.add_new_names());
        break;
      default:  // a field of a newer minor version: skipped
        break;
    }
    if (layout != Layout::kRead) return layout;
  }
  return Layout::kRead;
}

}  // namespace pecan
