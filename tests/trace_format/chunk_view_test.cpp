// The reader's light parse of a chunk (trace_format/chunk_view.h) and the decoding of its packed
// columns in place: whatever protobuf reads as the same EventChunk (a column split in two or
// unpacked, fields out of order, unknown fields) decodes to the same events, and damaged columns
// end in one clear PecanError, never a read past the chunk's bytes.
#include <google/protobuf/stubs/logging.h>
#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "random_trace.h"
#include "reference_chunk.h"
#include "same_events.h"
#include "trace_format/chunk_codec.h"
#include "trace_format/chunk_view.h"
#include "trace_format/error.h"
#include "trace_format/proto_conversion.h"
#include "trace_format/wire.h"

using namespace pecan;
using pecan::testing::BatchOf;
using pecan::testing::DecodeChunkBytes;
using pecan::testing::MakeRandomTrace;
using pecan::testing::RandomTraceShape;
using pecan::testing::ReferenceChunk;
using pecan::testing::RequireSameEvents;
using Chunk = pecan::proto::EventChunk;

namespace {

std::string Varints(const std::vector<uint64_t>& values) {
  std::string bytes;
  for (uint64_t v : values) {
    uint8_t buffer[wire::kMaxVarintBytes];
    uint8_t* end = buffer;
    wire::PutVarint(end, v);
    bytes.append(reinterpret_cast<const char*>(buffer), end - buffer);
  }
  return bytes;
}

// Protobuf fields written by hand.
class FieldWriter {
 public:
  void Varint(uint32_t field, uint64_t v) {
    Tag(field, wire::kVarint);
    bytes_ += Varints({v});
  }
  void Fixed64(uint32_t field, uint64_t v) {
    Tag(field, wire::kFixed64);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void Fixed32(uint32_t field, uint32_t v) {
    Tag(field, wire::kFixed32);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void Delimited(uint32_t field, std::string_view payload) {
    Tag(field, wire::kLengthDelimited);
    bytes_ += Varints({payload.size()});
    bytes_ += payload;
  }
  void Packed(uint32_t field, const std::vector<uint64_t>& values) {
    Delimited(field, Varints(values));
  }
  void Unpacked(uint32_t field, const std::vector<uint64_t>& values) {
    for (uint64_t v : values) Varint(field, v);
  }
  // A group (wire types 3 and 4, from proto2) holding one varint field.
  void Group(uint32_t field) {
    Tag(field, 3);
    Varint(1, 5);
    Tag(field, 4);
  }
  void Raw(std::string_view bytes) { bytes_ += bytes; }
  const std::string& bytes() const { return bytes_; }

 private:
  void Tag(uint32_t field, uint8_t type) { bytes_ += Varints({uint64_t{field} << 3 | type}); }

  std::string bytes_;
};

// A chunk's packed columns, as wire values (the deltas zig-zagged), by field number.
struct Column {
  uint32_t field;
  const char* name;
  std::vector<uint64_t> values;
};

// An EventChunk taken apart, to lay out by hand.
struct ChunkFields {
  uint64_t first_event = 0;
  uint32_t count = 0;
  std::vector<Column> columns;  // in field number order
  std::string kind, flags;
  std::string tables;  // fields 10-13, serialized
};

ChunkFields FieldsOf(const Chunk& chunk) {
  ChunkFields f;
  f.first_event = chunk.first_event();
  f.count = chunk.count();
  auto unsigned_values = [](const auto& repeated) {
    return std::vector<uint64_t>(repeated.begin(), repeated.end());
  };
  auto zig_zagged = [](const auto& repeated) {
    std::vector<uint64_t> values;
    for (int64_t v : repeated) values.push_back(wire::ZigZag(v));
    return values;
  };
  f.columns = {
      {Chunk::kThreadRunThreadFieldNumber, "thread_run_thread",
       unsigned_values(chunk.thread_run_thread())},
      {Chunk::kThreadRunLengthFieldNumber, "thread_run_length",
       unsigned_values(chunk.thread_run_length())},
      {Chunk::kAddrDeltaFieldNumber, "addr_delta", zig_zagged(chunk.addr_delta())},
      {Chunk::kSizeFieldNumber, "size", unsigned_values(chunk.size())},
      {Chunk::kSiteDeltaFieldNumber, "site_delta", zig_zagged(chunk.site_delta())},
      {Chunk::kRepeatsBeforeFieldNumber, "repeats_before", unsigned_values(chunk.repeats_before())},
  };
  f.kind = chunk.kind();
  f.flags = chunk.flags();
  Chunk tables;
  *tables.mutable_new_threads() = chunk.new_threads();
  *tables.mutable_new_sites() = chunk.new_sites();
  *tables.mutable_new_modules() = chunk.new_modules();
  *tables.mutable_new_names() = chunk.new_names();
  f.tables = tables.SerializeAsString();
  return f;
}

// The fields as our writer lays them out (and protobuf serializes them): in number order, each
// column packed once, the table entries before repeats_before. `column_bytes` replaces the
// payload of column `replaced`, when given; `between` adds fields before each field (the table
// entries count as one) and at the end.
std::string WriterLayout(const ChunkFields& f, uint32_t replaced = 0,
                         std::string_view column_bytes = {},
                         const std::function<void(FieldWriter&)>& between = nullptr) {
  FieldWriter w;
  auto next = [&w, &between] {
    if (between) between(w);
  };
  next();
  w.Varint(Chunk::kFirstEventFieldNumber, f.first_event);
  next();
  w.Varint(Chunk::kCountFieldNumber, f.count);
  for (const Column& column : f.columns) {
    next();
    if (column.field == Chunk::kRepeatsBeforeFieldNumber) {
      w.Raw(f.tables);
      next();
    }
    if (column.field == Chunk::kAddrDeltaFieldNumber) {
      w.Delimited(Chunk::kKindFieldNumber, f.kind);
      next();
    }
    if (column.field == Chunk::kSiteDeltaFieldNumber) {
      w.Delimited(Chunk::kFlagsFieldNumber, f.flags);
      next();
    }
    if (column.field == replaced)
      w.Delimited(column.field, column_bytes);
    else if (!column.values.empty())
      w.Packed(column.field, column.values);
  }
  next();
  return w.bytes();
}

struct Fixture {
  Trace trace;
  Chunk chunk;
  ChunkFields fields;
  std::string canonical;  // protobuf's serialization
};

// A chunk of every kind over several threads, with repeats before some events and new entries
// in every table.
Fixture MakeFixture() {
  Fixture x;
  x.trace = MakeRandomTrace(11, RandomTraceShape{700, 6, 40, 5});
  x.chunk = ReferenceChunk(BatchOf(x.trace, 0, x.trace.size_events(), 4242));
  for (size_t i = 0; i < x.trace.threads.size(); ++i)
    *x.chunk.add_new_threads() = ThreadToProto(static_cast<ThreadId>(i), x.trace.threads[i]);
  for (size_t i = 0; i < x.trace.sites.size(); ++i)
    *x.chunk.add_new_sites() = SiteToProto(static_cast<SiteId>(i), x.trace.sites[i]);
  for (const ModuleInfo& m : x.trace.modules) *x.chunk.add_new_modules() = ModuleToProto(m);
  for (const AddressName& n : x.trace.names) *x.chunk.add_new_names() = NameToProto(n);
  x.fields = FieldsOf(x.chunk);
  x.canonical = x.chunk.SerializeAsString();
  return x;
}

EventBatch Decode(const Fixture& x, std::string_view bytes) {
  ChunkDecoder decoder;
  EventBatch batch;
  DecodeChunkBytes(decoder, bytes, x.trace.threads.size(), x.trace.sites.size(), batch, "f.pecan");
  return batch;
}

// `bytes` read as the same chunk as `x`'s: the same events and table entries.
void CheckReadsAsTheChunk(const Fixture& x, const std::string& bytes) {
  RequireSameEvents(Decode(x, bytes), BatchOf(x.trace, 0, x.trace.size_events(), 4242));
  ChunkView view;
  REQUIRE(view.Parse(bytes));
  CHECK(view.tables.SerializeAsString() == x.fields.tables);
}

}  // namespace

TEST_CASE("the light parse knows every field of EventChunk", "[chunk-view]") {
  // ChunkView reads fields 1-14 by hand and skips any other as a newer version's: a field added
  // to the schema must be added there too.
  const google::protobuf::Descriptor* descriptor = Chunk::descriptor();
  CHECK(descriptor->field_count() == Chunk::kRepeatsBeforeFieldNumber);
  for (int i = 0; i < descriptor->field_count(); ++i)
    CHECK(descriptor->field(i)->number() <= Chunk::kRepeatsBeforeFieldNumber);
}

TEST_CASE("the writer's layout is protobuf's, and reads back", "[chunk-view]") {
  const Fixture x = MakeFixture();
  REQUIRE(!x.chunk.repeats_before().empty());
  CHECK(WriterLayout(x.fields) == x.canonical);
  CheckReadsAsTheChunk(x, x.canonical);
}

TEST_CASE("a chunk laid out otherwise reads as the same events", "[chunk-view]") {
  const Fixture x = MakeFixture();
  const ChunkFields& f = x.fields;
  FieldWriter w;
  SECTION("each column split in two packed fields, the second part after everything else") {
    w.Varint(Chunk::kFirstEventFieldNumber, f.first_event);
    w.Varint(Chunk::kCountFieldNumber, f.count);
    w.Delimited(Chunk::kKindFieldNumber, f.kind);
    w.Delimited(Chunk::kFlagsFieldNumber, f.flags);
    for (const Column& column : f.columns) {
      const auto half = column.values.begin() + column.values.size() / 2;
      w.Packed(column.field, {column.values.begin(), half});
    }
    w.Raw(f.tables);
    for (const Column& column : f.columns) {
      const auto half = column.values.begin() + column.values.size() / 2;
      w.Packed(column.field, {half, column.values.end()});
    }
  }
  SECTION("one column split, the others as the writer lays them") {
    for (const Column& column : f.columns) {
      DYNAMIC_SECTION(column.name) {
        const auto half = column.values.begin() + column.values.size() / 2;
        w.Raw(WriterLayout(f, column.field, Varints({column.values.begin(), half})));
        w.Packed(column.field, {half, column.values.end()});
      }
    }
  }
  SECTION("every column unpacked: a tag per value") {
    w.Varint(Chunk::kFirstEventFieldNumber, f.first_event);
    w.Varint(Chunk::kCountFieldNumber, f.count);
    w.Delimited(Chunk::kKindFieldNumber, f.kind);
    w.Delimited(Chunk::kFlagsFieldNumber, f.flags);
    for (const Column& column : f.columns) w.Unpacked(column.field, column.values);
    w.Raw(f.tables);
  }
  SECTION("one column unpacked after the others") {
    for (const Column& column : f.columns) {
      DYNAMIC_SECTION(column.name) {
        w.Raw(WriterLayout(f, column.field, ""));
        w.Unpacked(column.field, column.values);
      }
    }
  }
  SECTION("a column partly packed, partly unpacked") {
    const Column& addrs = f.columns[2];
    REQUIRE(addrs.field == Chunk::kAddrDeltaFieldNumber);
    const auto half = addrs.values.begin() + addrs.values.size() / 2;
    w.Raw(WriterLayout(f, addrs.field, Varints({addrs.values.begin(), half})));
    w.Unpacked(addrs.field, {half, addrs.values.end()});
  }
  SECTION("fields in reverse order, the table entries first") {
    w.Raw(f.tables);
    for (auto column = f.columns.rbegin(); column != f.columns.rend(); ++column)
      w.Packed(column->field, column->values);
    w.Delimited(Chunk::kFlagsFieldNumber, f.flags);
    w.Delimited(Chunk::kKindFieldNumber, f.kind);
    w.Varint(Chunk::kCountFieldNumber, f.count);
    w.Varint(Chunk::kFirstEventFieldNumber, f.first_event);
  }
  SECTION("scalars and bytes fields met twice: the last wins") {
    w.Varint(Chunk::kFirstEventFieldNumber, 99);
    w.Varint(Chunk::kCountFieldNumber, 3);
    w.Delimited(Chunk::kKindFieldNumber, "abc");
    w.Delimited(Chunk::kFlagsFieldNumber, std::string(f.count + 5, '\7'));
    w.Raw(WriterLayout(f));
  }
  SECTION("unknown fields of every wire type between the fields") {
    uint32_t field = 100;
    w.Raw(WriterLayout(f, 0, {}, [&field](FieldWriter& unknown) {
      unknown.Varint(field++, UINT64_MAX);
      unknown.Fixed64(2000, 0x0123456789abcdef);
      unknown.Delimited(536870911, "from a newer pecan");  // the largest field number
      unknown.Fixed32(15, 7);
    }));
    REQUIRE(field > 110);
  }
  SECTION("an unknown group") {
    w.Group(20);
    w.Raw(WriterLayout(f));
    w.Group(21);
  }
  CheckReadsAsTheChunk(x, w.bytes());
}

TEST_CASE("a chunk decoded in parts of any size gives the events of the whole chunk",
          "[chunk-view]") {
  const Fixture x = MakeFixture();
  const EventBatch whole = Decode(x, x.canonical);
  ChunkView view;
  REQUIRE(view.Parse(x.canonical));
  ChunkDecoder decoder;
  for (uint64_t part : {uint64_t{1}, uint64_t{2}, uint64_t{7}, uint64_t{64}, uint64_t{699}}) {
    INFO("parts of " << part);
    decoder.Start(view, x.trace.threads.size(), x.trace.sites.size(), "f.pecan", kTraceFormatMajor);
    EventBatch batch;
    std::vector<uint64_t> addrs;
    std::vector<ThreadId> threads;
    std::vector<uint32_t> sizes;
    std::vector<uint16_t> repeats;
    while (decoder.DecodeNext(batch, part)) {
      CHECK(batch.first_event == whole.first_event + addrs.size());
      addrs.insert(addrs.end(), batch.addr.begin(), batch.addr.end());
      threads.insert(threads.end(), batch.thread.begin(), batch.thread.end());
      sizes.insert(sizes.end(), batch.size.begin(), batch.size.end());
      repeats.insert(repeats.end(), batch.repeats_before.begin(), batch.repeats_before.end());
    }
    CHECK(addrs == whole.addr);
    CHECK(threads == whole.thread);
    CHECK(sizes == whole.size);
    CHECK(repeats == whole.repeats_before);
  }
}

TEST_CASE("damaged columns are refused with one clear error", "[chunk-view]") {
  const Fixture x = MakeFixture();
  const ChunkFields& f = x.fields;
  const std::string n = std::to_string(f.count);
  for (const Column& column : f.columns) {
    const std::string name = column.name;
    const std::string varints = Varints(column.values);
    INFO(name);
    // Stops at the decoder's first complaint, wherever in the chunk it is.
    auto refused = [&](const std::string& payload, const std::string& message) {
      CHECK_THROWS_WITH(Decode(x, WriterLayout(f, column.field, payload)), "f.pecan: " + message);
    };
    refused(varints + '\x80', "chunk does not parse: its " + name + " column ends inside a varint");
    refused(varints + "\xff\xff",
            "chunk does not parse: its " + name + " column ends inside a varint");
    // The first varint and the last made 11 bytes long: the value, then 0 bits.
    auto eleven_bytes = [](uint64_t value) {
      std::string bytes = Varints({value});
      bytes.back() = static_cast<char>(bytes.back() | 0x80);
      bytes.resize(10, '\x80');
      return bytes + '\0';
    };
    const std::string first = Varints({column.values[0]});
    const std::string last = Varints({column.values.back()});
    const std::string long_varint =
        "chunk does not parse: its " + name + " column holds a varint longer than 10 bytes";
    refused(eleven_bytes(column.values[0]) + varints.substr(first.size()), long_varint);
    refused(varints.substr(0, varints.size() - last.size()) + eleven_bytes(column.values.back()),
            long_varint);
    // One value too many, one too few.
    const std::string disagree = column.field == Chunk::kThreadRunThreadFieldNumber ||
                                         column.field == Chunk::kThreadRunLengthFieldNumber
                                     ? "chunk thread-run columns disagree"
                                 : column.field == Chunk::kRepeatsBeforeFieldNumber
                                     ? "chunk repeat counts disagree with its event count " + n
                                     : "chunk columns disagree with its event count " + n;
    refused(varints + '\0', disagree);
    refused(varints.substr(0, varints.size() - last.size()), disagree);
  }
}

TEST_CASE("a 10-byte varint in a column reads as protobuf reads it", "[chunk-view]") {
  const Fixture x = MakeFixture();
  const ChunkFields& f = x.fields;
  for (const Column& column : f.columns) {
    INFO(column.name);
    // The first value in 10 bytes, the last with bits past 64 (which protobuf drops).
    const std::string varints = Varints(column.values);
    std::string first = Varints({column.values[0]});
    const size_t first_size = first.size();
    first.back() = static_cast<char>(first.back() | 0x80);
    first.resize(9, '\x80');
    first += '\x7e';
    const std::string chunk = WriterLayout(f, column.field, first + varints.substr(first_size));
    Chunk parsed;
    REQUIRE(parsed.ParseFromString(chunk));
    RequireSameEvents(Decode(x, chunk), Decode(x, parsed.SerializeAsString()));
  }
}

TEST_CASE("a chunk's bytes damaged anywhere decode or fail with PecanError", "[chunk-view]") {
  const Fixture x = MakeFixture();
  google::protobuf::LogSilencer quiet;  // protobuf logs each bad UTF-8 string it refuses
  std::mt19937_64 rng(3);
  auto pick = [&rng](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  size_t refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = x.canonical;
    for (uint64_t damage = 1 + pick(3); damage > 0; --damage) {
      const size_t at = pick(bytes.size());
      switch (pick(4)) {
        case 0:
          bytes[at] = static_cast<char>(pick(256));
          break;
        case 1:
          bytes[at] = static_cast<char>(bytes[at] ^ 0x80);
          break;
        case 2:
          bytes.erase(at, 1 + pick(4));
          break;
        default:
          bytes.resize(at);
          break;
      }
      if (bytes.empty()) break;
    }
    try {
      Decode(x, bytes);
    } catch (const PecanError&) {
      ++refused;
    }
  }
  CHECK(refused > 1000);
}
