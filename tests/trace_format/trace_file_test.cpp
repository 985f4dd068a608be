// Round trips through .pecan files: random event streams of every kind over many chunks, the
// tables, the metadata, streaming and random access, STD -> .pecan -> STD, and the hashes.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include "random_trace.h"
#include "trace_format/error.h"
#include "trace_format/log.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"
#include "trace_format/version.h"
#include "trace_format/xxhash64.h"

using namespace pecan;
using pecan::testing::MakeRandomTrace;
using pecan::testing::RandomTraceShape;
using pecan::testing::TempFile;

namespace {

void RequireSameTrace(const Trace& a, const Trace& b) {
  REQUIRE(a.size_events() == b.size_events());
  CHECK(a.thread == b.thread);
  CHECK(a.kind == b.kind);
  CHECK(a.flags == b.flags);
  CHECK(a.size == b.size);
  CHECK(a.addr == b.addr);
  CHECK(a.site == b.site);
  CHECK(a.repeats_before == b.repeats_before);
  REQUIRE(a.threads.size() == b.threads.size());
  for (size_t i = 0; i < a.threads.size(); ++i) {
    CHECK(a.threads[i].parent == b.threads[i].parent);
    CHECK(a.threads[i].ordinal == b.threads[i].ordinal);
    CHECK(a.threads[i].name == b.threads[i].name);
  }
  REQUIRE(a.sites.size() == b.sites.size());
  for (size_t i = 0; i < a.sites.size(); ++i) {
    CHECK(a.sites[i].module == b.sites[i].module);
    CHECK(a.sites[i].offset == b.sites[i].offset);
  }
  REQUIRE(a.modules.size() == b.modules.size());
  for (size_t i = 0; i < a.modules.size(); ++i) {
    CHECK(a.modules[i].id == b.modules[i].id);
    CHECK(a.modules[i].path == b.modules[i].path);
    CHECK(a.modules[i].load_address == b.modules[i].load_address);
    CHECK(a.modules[i].build_id == b.modules[i].build_id);
  }
  REQUIRE(a.names.size() == b.names.size());
  for (size_t i = 0; i < a.names.size(); ++i) {
    CHECK(a.names[i].address == b.names[i].address);
    CHECK(a.names[i].size == b.names[i].size);
    CHECK(a.names[i].name == b.names[i].name);
  }
}

}  // namespace

TEST_CASE("XXH64 matches the reference implementation", "[pecan-file]") {
  // Reference values computed with libxxhash 0.8.1.
  CHECK(Xxh64("", 0, 0) == 0xef46db3751d8e999ull);
  CHECK(Xxh64("a", 1, 0) == 0xd24ec4f1a98c6e5bull);
  CHECK(Xxh64("abc", 3, 0) == 0x44bc2cf5ad770999ull);
  const std::string s42 = "0123456789abcdef0123456789abcdef0123456789";
  CHECK(Xxh64(s42.data(), s42.size(), 0) == 0xa76190c3acf08a1cull);
  std::string s768;
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 256; ++i) s768.push_back(static_cast<char>(i));
  CHECK(Xxh64(s768.data(), s768.size(), 7) == 0xb1e10f6c5294cd6bull);
  CHECK(Xxh64("pecan trace", 11, 12345) == 0xd67792e12940b4d5ull);
  // The incremental form agrees however the input is split.
  for (size_t step : {1, 3, 31, 32, 33, 100}) {
    Xxh64Stream stream(7);
    for (size_t i = 0; i < s768.size(); i += step)
      stream.Update(s768.data() + i, std::min(step, s768.size() - i));
    CHECK(stream.Digest() == 0xb1e10f6c5294cd6bull);
  }
}

TEST_CASE("random traces of every kind round-trip through .pecan files", "[pecan-file]") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    RandomTraceShape shape;
    shape.events = 500 + 700 * seed;
    shape.threads = 1 + seed * 5;
    shape.sites = 1 + seed * 40;
    Trace original = MakeRandomTrace(seed, shape);
    TempFile file("roundtrip.pecan");
    TraceWriterOptions options;
    options.chunk_events = static_cast<uint32_t>(1 + seed * 97);
    options.zstd_level = static_cast<int>(seed % 5);
    WriteTrace(file.path(), original, options);
    Trace back = ReadTrace(file.path());
    INFO("seed " << seed);
    RequireSameTrace(original, back);
    CHECK(back.meta.format_major == kTraceFormatMajor);
    CHECK(back.meta.format_minor == kTraceFormatMinor);
    CHECK(back.meta.producer == original.meta.producer);
    CHECK(back.meta.program == original.meta.program);
    CHECK(back.meta.args == original.meta.args);
    CHECK(back.meta.pid == original.meta.pid);
    CHECK(back.meta.start_unix_ns == original.meta.start_unix_ns);
    CHECK(back.meta.settings.chunk_events == original.meta.settings.chunk_events);
    CHECK(back.meta.settings.fork_policy == "stop");
    CHECK(back.meta.settings.func_events);
    CHECK(back.meta.settings.drop_repeats);
    CHECK(!back.repeats_before.empty());
    CHECK(back.meta.exit.known);
    CHECK(back.meta.exit.exit_status == 3);
    CHECK(back.meta.dropped_events == original.meta.dropped_events);
  }
}

TEST_CASE("streaming and random access read the same chunks", "[pecan-file]") {
  Trace original = MakeRandomTrace(99, RandomTraceShape{5000, 20, 100});
  TempFile file("chunks.pecan");
  WriteTrace(file.path(), original, TraceWriterOptions{333, 1});
  TraceReader reader(file.path());
  CHECK(reader.complete());
  REQUIRE(reader.chunk_count() == (5000 + 332) / 333);
  std::vector<EventBatch> streamed;
  EventBatch batch;
  while (reader.Next(batch)) streamed.push_back(batch);
  REQUIRE(streamed.size() == reader.chunk_count());
  for (size_t i = reader.chunk_count(); i-- > 0;) {  // backwards, to be sure it is random access
    EventBatch one;
    reader.ReadChunk(i, one);
    CHECK(one.first_event == i * 333);
    CHECK(reader.chunk_first_event(i) == i * 333);
    CHECK(one.first_event == streamed[i].first_event);
    CHECK(one.kind == streamed[i].kind);
    CHECK(one.addr == streamed[i].addr);
    CHECK(one.site == streamed[i].site);
    CHECK(one.thread == streamed[i].thread);
  }
  CHECK(reader.warnings().empty());
  CHECK_THROWS_AS(reader.ReadChunk(reader.chunk_count(), batch), PecanError);
  CHECK_THROWS_AS(reader.chunk_first_event(reader.chunk_count()), PecanError);
}

TEST_CASE("a chunk read in parts gives the events of the whole chunk", "[pecan-file]") {
  Trace original = MakeRandomTrace(7, RandomTraceShape{5000, 20, 100});
  TempFile file("parts.pecan");
  WriteTrace(file.path(), original, TraceWriterOptions{333, 1});
  for (const uint64_t max :
       {uint64_t{1}, uint64_t{7}, uint64_t{100}, uint64_t{333}, uint64_t{1000}}) {
    INFO("at most " << max << " events at a time");
    TraceReader reader(file.path());
    Trace got;  // the parts' columns, one after the other
    std::vector<uint16_t> repeats;
    EventBatch batch;
    size_t parts = 0;
    while (reader.NextEvents(batch, max)) {
      REQUIRE(batch.count() <= max);
      REQUIRE(batch.first_event == got.thread.size());  // the parts follow each other
      ++parts;
      if (parts % 5 == 0) {  // random access in between does not disturb the parts
        EventBatch other;
        reader.ReadChunk(parts % reader.chunk_count(), other);
      }
      auto append = [](auto& to, const auto& from) {
        to.insert(to.end(), from.begin(), from.end());
      };
      append(got.thread, batch.thread);
      append(got.kind, batch.kind);
      append(got.flags, batch.flags);
      append(got.size, batch.size);
      append(got.addr, batch.addr);
      append(got.site, batch.site);
      for (size_t j = 0; j < batch.count(); ++j)
        repeats.push_back(batch.repeats_before.empty() ? 0 : batch.repeats_before[j]);
    }
    // Parts never span two chunks.
    CHECK(parts ==
          (max >= 333 ? 16 : 15 * ((333 + max - 1) / max) + (5000 - 15 * 333 + max - 1) / max));
    CHECK(got.thread == original.thread);
    CHECK(got.kind == original.kind);
    CHECK(got.flags == original.flags);
    CHECK(got.size == original.size);
    CHECK(got.addr == original.addr);
    CHECK(got.site == original.site);
    if (!original.repeats_before.empty()) CHECK(repeats == original.repeats_before);
    CHECK(reader.complete());
    CHECK(reader.warnings().empty());
  }
}

TEST_CASE("the writer keeps thread ids dense however they are added", "[pecan-file]") {
  TempFile file("gaps.pecan");
  {
    TraceWriter writer(file.path(), TraceMeta{}, TraceWriterOptions{2, 3});
    writer.AddSite(0, SiteInfo{0, 7});
    writer.AddThread(0, ThreadInfo{std::nullopt, 0, "main"});
    writer.AddThread(3, ThreadInfo{0, 2, "late"});  // 1 and 2 come later
    writer.Append(Event{3, EventKind::kWrite, 0, 8, 0x10, 0});
    writer.Append(Event{0, EventKind::kRead, 0, 8, 0x10, 0});
    writer.Append(Event{3, EventKind::kRead, 0, 8, 0x18, 0});
    writer.Flush();
    writer.AddThread(1, ThreadInfo{0, 0, "one"});
    writer.AddThread(2, ThreadInfo{0, 1, "two"});
    writer.AddSite(1, SiteInfo{0, 8});
    writer.Append(Event{2, EventKind::kRead, 0, 8, 0x20, 1});
    CHECK_THROWS_AS(writer.Append(Event{9, EventKind::kRead, 0, 8, 0x20, 1}), PecanError);
    CHECK_THROWS_AS(writer.Append(Event{1, EventKind::kRead, 0, 8, 0x20, 5}), PecanError);
    writer.Finish();
  }
  Trace t = ReadTrace(file.path());
  REQUIRE(t.threads.size() == 4);
  CHECK(t.threads[1].name == "one");
  CHECK(t.threads[3].name == "late");
  CHECK(t.thread == std::vector<ThreadId>{3, 0, 3, 2});
  CHECK(t.addr == std::vector<uint64_t>{0x10, 0x10, 0x18, 0x20});
  CHECK_FALSE(t.meta.exit.known);
}

TEST_CASE("an empty trace is a valid file", "[pecan-file]") {
  TempFile file("empty.pecan");
  WriteTrace(file.path(), Trace{});
  TraceReader reader(file.path());
  EventBatch batch;
  CHECK_FALSE(reader.Next(batch));
  CHECK(reader.chunk_count() == 0);
  CHECK(reader.complete());
}

TEST_CASE("STD text round-trips through a .pecan file to the same text", "[pecan-file][std]") {
  const std::string text =
      "T0|begin|1\n"
      "T0|w(x)|2\n"
      "T0|fork(T1)|3\n"
      "T1|acq(m)|4\n"
      "T1|r(x)|5\n"
      "T1|astore(flag,release)|6\n"
      "T1|rel(m)|7\n"
      "T0|aload(flag,acquire)|8\n"
      "T0|w(buffer[3])|main.c:99\n"
      "T0|join(T1)|9\n";
  std::istringstream in(text);
  Trace imported = ImportStd(in, "t.std");
  TempFile file("std.pecan");
  WriteTrace(file.path(), imported, TraceWriterOptions{3, 3});
  std::ostringstream out;
  ExportStd(ReadTrace(file.path()), out);
  CHECK(out.str() == text);

  // Generated STD traces: random plain STD with many threads, names and locations.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 rng(seed);
    std::string generated;
    const char* ops[] = {"r", "w", "acq", "rel", "aload", "post", "enter"};
    for (int i = 0; i < 2000; ++i) {
      generated += "T" + std::to_string(rng() % 7) + "|" + ops[rng() % 7] + "(n" +
                   std::to_string(rng() % 50) + ")|" + std::to_string(rng() % 300) + "\n";
    }
    std::istringstream gin(generated);
    Trace g = ImportStd(gin, "gen.std");
    TempFile gfile("gen.pecan");
    WriteTrace(gfile.path(), g, TraceWriterOptions{128, 3});
    std::ostringstream gout;
    ExportStd(ReadTrace(gfile.path()), gout);
    CHECK(gout.str() == generated);
  }
}

TEST_CASE("the content hash follows the file's bytes", "[pecan-file]") {
  Trace t = MakeRandomTrace(5);
  TempFile a("a.pecan"), b("b.pecan"), c("c.pecan");
  WriteTrace(a.path(), t);
  WriteTrace(b.path(), t);
  t.addr[10] ^= 1;
  WriteTrace(c.path(), t);
  std::string ha = TraceContentHash(a.path());
  CHECK(ha.size() == 16);
  CHECK(ha == TraceContentHash(b.path()));
  CHECK(ha != TraceContentHash(c.path()));
  std::string bytes = pecan::testing::ReadFileBytes(a.path());
  char expected[17];
  std::snprintf(expected, sizeof expected, "%016llx",
                static_cast<unsigned long long>(Xxh64(bytes.data(), bytes.size(), 0)));
  CHECK(ha == expected);
  CHECK_THROWS_AS(TraceContentHash("/nonexistent/trace.pecan"), PecanError);
}

TEST_CASE("the footer states the event count; a file cut short has none to state", "[pecan-file]") {
  Trace original = MakeRandomTrace(17, RandomTraceShape{4000, 6, 50});
  TempFile file("counted.pecan");
  WriteTrace(file.path(), original, TraceWriterOptions{500, 1});
  {
    TraceReader reader(file.path());
    REQUIRE(reader.footer_event_count().has_value());
    CHECK(*reader.footer_event_count() == original.size_events());
  }
  std::ifstream in(file.path(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TempFile cut("counted-cut.pecan");
  std::ofstream(cut.path(), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  TraceReader reader(cut.path());
  CHECK_FALSE(reader.footer_event_count().has_value());
  uint64_t events = 0;
  EventBatch batch;
  while (reader.Next(batch)) events += batch.count();
  CHECK(events > 0);
  CHECK(events < original.size_events());
}
