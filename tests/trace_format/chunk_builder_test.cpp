// The writer's fast path: a chunk's columns encoded straight into protobuf wire format must be
// byte for byte what protobuf itself writes, and traces written through it must read back to
// exactly the events appended — wide accesses, every stamped kind, many threads, chunk edges.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>
#include <random>

#include "random_trace.h"
#include "reference_chunk.h"
#include "same_events.h"
#include "trace_format/chunk_builder.h"
#include "trace_format/chunk_codec.h"
#include "trace_format/error.h"
#include "trace_format/log.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"

using namespace pecan;
using pecan::testing::BatchOf;
using pecan::testing::DecodeChunk;
using pecan::testing::DecodeChunkBytes;
using pecan::testing::MakeRandomTrace;
using pecan::testing::RandomTraceShape;
using pecan::testing::ReferenceChunk;
using pecan::testing::RequireSameEvents;
using pecan::testing::TempFile;

namespace {

// The builder's encoding of `batch` (which it may already hold other chunks' state for).
std::string Build(ChunkBuilder& builder, const EventBatch& batch) {
  builder.Reserve(static_cast<uint32_t>(batch.count()));
  for (size_t i = 0; i < batch.count(); ++i) {
    if (batch.thread[i] != builder.run_thread()) builder.StartRun(batch.thread[i]);
    builder.Add(batch.kind[i], batch.flags[i], batch.size[i], batch.addr[i], batch.site[i],
                batch.event(i).repeats_before);
  }
  REQUIRE(builder.count() == batch.count());
  std::string bytes(builder.Seal(batch.first_event) + builder.RepeatsFieldSize(), '\0');
  uint8_t* end = builder.Encode(reinterpret_cast<uint8_t*>(bytes.data()));
  end = builder.EncodeRepeats(end);
  CHECK(end == reinterpret_cast<uint8_t*>(bytes.data()) + bytes.size());
  builder.Clear();
  return bytes;
}

// Every extreme each column can hold: 64-bit address jumps both ways, the largest sizes, site
// ids at both ends, every flag byte, kinds this pecan does not know, large thread ids.
EventBatch ExtremeBatch() {
  EventBatch b;
  auto add = [&b](ThreadId t, uint8_t kind, uint8_t flags, uint32_t size, uint64_t addr,
                  SiteId site) {
    b.thread.push_back(t);
    b.kind.push_back(static_cast<EventKind>(kind));
    b.flags.push_back(flags);
    b.size.push_back(size);
    b.addr.push_back(addr);
    b.site.push_back(site);
  };
  const ThreadId far = 70000;  // a three-byte varint (the delta state grows to hold it)
  add(0, 1, 0, 0, 0, 0);
  add(0, 2, 255, UINT32_MAX, UINT64_MAX, (1u << 30) - 1);
  add(0, 1, 128, 1u << 31, 0, 0);
  add(far, 255, 7, 16, uint64_t{1} << 63, (1u << 30) - 1);
  add(far, 0, 0, 127, (uint64_t{1} << 63) - 1, 0);
  add(0, 29, 5, 128, 0x7fffffffffffULL, 1);
  add(far, 3, 2, 8, 0, 0);
  for (uint32_t v = 1; v != 0 && v < UINT32_MAX / 2; v *= 3) add(1, 1, 0, v, v * 977ULL, v % 1000);
  return b;
}

}  // namespace

TEST_CASE("chunk columns in wire format are exactly what protobuf serializes", "[chunk-builder]") {
  ChunkBuilder builder;  // one builder for every chunk: state must not leak between chunks
  SECTION("extreme values") {
    EventBatch batch = ExtremeBatch();
    for (uint64_t first_event : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 40}) {
      batch.first_event = first_event;
      std::string bytes = Build(builder, batch);
      CHECK(bytes == ReferenceChunk(batch).SerializeAsString());
    }
  }
  SECTION("random chunks of every kind over many threads") {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      INFO("seed " << seed);
      Trace t = MakeRandomTrace(seed, RandomTraceShape{1 + seed * seed * 37, 1 + seed * 13, 300});
      EventBatch batch = BatchOf(t, 0, t.size_events(), seed * 1000);
      std::string bytes = Build(builder, batch);
      proto::EventChunk expected = ReferenceChunk(batch);
      CHECK(bytes == expected.SerializeAsString());

      // And the reader decodes it, also with table entries appended after the columns.
      *expected.add_new_sites() = proto::Site();
      proto::EventChunk entries;
      *entries.add_new_sites() = proto::Site();
      proto::EventChunk parsed;
      REQUIRE(parsed.ParseFromString(bytes + entries.SerializeAsString()));
      CHECK(parsed.SerializeAsString() == expected.SerializeAsString());
      EventBatch decoded;
      ChunkDecoder decoder;
      DecodeChunkBytes(decoder, bytes + entries.SerializeAsString(), t.threads.size(),
                       t.sites.size(), decoded, "test");
      RequireSameEvents(batch, decoded);
    }
  }
  SECTION("an empty chunk") {
    std::string bytes = Build(builder, EventBatch{});
    CHECK(bytes.empty());
  }
}

namespace {

// A recorder-like stream: threads forked one after another, each running for a while (runs of
// plain accesses, some wider than 255 bytes, function entries and exits) between stamped
// events of every kind. Sites are added just before their first use, as the recorder does.
struct RecordedStream {
  Trace trace;
  std::vector<size_t> sites_added_before;  // event index before which each site is added
};

RecordedStream MakeRecordedStream(uint64_t seed, size_t events, size_t threads) {
  std::mt19937_64 rng(seed);
  auto pick = [&rng](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  RecordedStream s;
  Trace& t = s.trace;
  t.meta.producer = "chunk-builder-test";
  t.threads.push_back(ThreadInfo{std::nullopt, 0, "T0"});
  std::vector<uint64_t> cursor(threads, 0);
  std::vector<uint32_t> children(threads, 0);
  const EventKind stamped[] = {
      EventKind::kAtomicLoad,    EventKind::kAtomicStore,   EventKind::kAtomicRmw,
      EventKind::kLock,          EventKind::kUnlock,        EventKind::kReadLock,
      EventKind::kReadUnlock,    EventKind::kJoin,          EventKind::kThreadEnd,
      EventKind::kWait,          EventKind::kNotify,        EventKind::kNotifyAll,
      EventKind::kBarrierArrive, EventKind::kBarrierDepart, EventKind::kSemPost,
      EventKind::kSemWait,       EventKind::kAlloc,         EventKind::kFree,
      EventKind::kRegionBegin,   EventKind::kRegionEnd,     EventKind::kHbRelease,
      EventKind::kHbAcquire,     EventKind::kFence};
  auto site_for = [&](uint64_t which) {
    const SiteId site = static_cast<SiteId>(which);
    while (t.sites.size() <= site) {
      s.sites_added_before.push_back(t.size_events());
      t.sites.push_back(SiteInfo{1, 0x1000 + 4 * t.sites.size()});
    }
    return site;
  };
  size_t next_stamped = 0;
  ThreadId current = 0;
  t.push_back(Event{0, EventKind::kThreadBegin, 0, 0, 0, site_for(0)});
  while (t.size_events() < events) {
    // A run of plain events of `current`.
    const size_t run = 1 + pick(pick(16) == 0 ? 5000 : 40);
    for (size_t i = 0; i < run; ++i) {
      Event e;
      e.thread = current;
      switch (pick(10)) {
        case 0:
          e.kind = EventKind::kFuncEntry;
          e.addr = 0;
          e.site = site_for(1 + pick(4));
          break;
        case 1:
          e.kind = EventKind::kFuncExit;
          e.site = site_for(1 + pick(4));
          break;
        case 2:  // a wide access: memcpy of a block, up to the largest size the format holds
          e.kind = pick(2) ? EventKind::kRead : EventKind::kWrite;
          e.size = pick(4) == 0 ? UINT32_MAX : static_cast<uint32_t>(256 + pick(1u << 20));
          e.addr = 0x7f0000000000ULL + pick(1ULL << 40);
          e.site = site_for(5 + pick(20));
          break;
        default:  // a strided walk
          e.kind = pick(3) ? EventKind::kRead : EventKind::kWrite;
          e.size = 1u << pick(5);
          e.addr = 0x10000 + current * 0x100000 + (cursor[current] += 8);
          e.site = site_for(5 + pick(40));
          break;
      }
      t.push_back(e);
    }
    // A stamped event; FORK while there are threads left to start, then the child begins.
    Event e;
    e.thread = current;
    e.site = site_for(50 + pick(30));
    if (t.threads.size() < threads && pick(4) != 0) {
      const ThreadId child = static_cast<ThreadId>(t.threads.size());
      t.threads.push_back(ThreadInfo{current, children[current]++, "T" + std::to_string(child)});
      e.kind = EventKind::kFork;
      e.addr = child;
      t.push_back(e);
      t.push_back(Event{child, EventKind::kThreadBegin, 0, 0, 0, site_for(0)});
      current = child;
      continue;
    }
    e.kind = stamped[next_stamped++ % std::size(stamped)];
    e.flags = static_cast<uint8_t>(pick(6));
    e.addr = e.kind == EventKind::kJoin ? pick(t.threads.size()) : 0x601000 + 8 * pick(64);
    e.size = IsAccess(e.kind) ? 1u << pick(5) : static_cast<uint32_t>(pick(1u << 12));
    t.push_back(e);
    current = static_cast<ThreadId>(pick(t.threads.size()));
  }
  return s;
}

// A source for TraceWriter::AppendRun: `count` events from `events`.
auto OneByOne(const RunEvent* events, size_t count) {
  return [events, count, next = size_t{0}]() mutable -> std::optional<RunEvent> {
    if (next == count) return std::nullopt;
    return events[next++];
  };
}

// Writes `s` with the given chunk size, flushing before the events in `flush_before`: one event
// at a time with Append, or (`runs`) consecutive events of a thread in blocks of up to 300
// with AppendRun, as the recorder does.
void WriteStream(const std::string& path, const RecordedStream& s, uint32_t chunk_events,
                 const std::vector<size_t>& flush_before, bool runs) {
  const Trace& t = s.trace;
  TraceWriter writer(path, t.meta, TraceWriterOptions{chunk_events, 1});
  for (size_t i = 0; i < t.threads.size(); ++i)
    writer.AddThread(static_cast<ThreadId>(i), t.threads[i]);
  std::mt19937_64 rng(chunk_events);
  size_t next_site = 0;
  size_t next_flush = 0;
  std::vector<RunEvent> block;
  for (size_t i = 0; i < t.size_events();) {
    if (next_flush < flush_before.size() && flush_before[next_flush] == i) {
      writer.Flush();
      ++next_flush;
    }
    // The events written next: one, or a run of one thread up to the next flush.
    size_t end = i + 1;
    if (runs) {
      const size_t limit =
          std::min({t.size_events(), i + 1 + rng() % 300,
                    next_flush < flush_before.size() ? flush_before[next_flush] : t.size_events()});
      while (end < limit && t.thread[end] == t.thread[i]) ++end;
    }
    while (next_site < s.sites_added_before.size() && s.sites_added_before[next_site] < end) {
      writer.AddSite(static_cast<SiteId>(next_site), t.sites[next_site]);
      ++next_site;
    }
    if (runs) {
      block.clear();
      for (size_t j = i; j < end; ++j)
        block.push_back(RunEvent{t.kind[j], t.flags[j], t.size[j], t.addr[j], t.site[j]});
      writer.AppendRun(t.thread[i], OneByOne(block.data(), block.size()));
    } else {
      writer.Append(t.event(i));
    }
    i = end;
    REQUIRE(writer.events_written() == i);
  }
  writer.Finish(ProgramExitInfo{true, true, 0, 0});
  CHECK_THROWS_WITH(writer.Append(t.event(0)), path + ": Append after Finish");
  const RunEvent late{EventKind::kRead, 0, 8, 0x10, 0};
  CHECK_THROWS_WITH(writer.AppendRun(0, OneByOne(&late, 1)), path + ": Append after Finish");
}

}  // namespace

TEST_CASE("traces written through the fast path read back to exactly the events appended",
          "[chunk-builder]") {
  const RecordedStream s = MakeRecordedStream(5, 40000, 200);
  REQUIRE(s.trace.threads.size() >= 100);
  for (int kind = 1; kind < kEventKindCount; ++kind)
    CHECK(std::count(s.trace.kind.begin(), s.trace.kind.end(), static_cast<EventKind>(kind)) > 0);
  CHECK(std::count_if(s.trace.size.begin(), s.trace.size.end(),
                      [](uint32_t n) { return n > 255; }) > 100);
  const std::vector<size_t> flushes = {1, 4095, 4096, 4097, 12345, 39999};
  // Sizes around the writer's first buffer growth (4096 events) and tiny ones, so that chunks
  // end inside runs, between a FORK and its THREAD_BEGIN, and right after a flush.
  for (uint32_t chunk_events : {1u, 2u, 3u, 4095u, 4096u, 4097u, 10000u, 65536u}) {
    INFO("chunk_events " << chunk_events);
    for (int variant = 0; variant < 4; ++variant) {
      const bool flush = variant & 1;
      const bool runs = variant & 2;
      INFO((flush ? "with flushes, " : "") << (runs ? "AppendRun" : "Append"));
      TempFile file("fast-path.pecan");
      WriteStream(file.path(), s, chunk_events, flush ? flushes : std::vector<size_t>{}, runs);
      Trace back = ReadTrace(file.path());
      REQUIRE(back.size_events() == s.trace.size_events());
      CHECK(back.thread == s.trace.thread);
      CHECK(back.kind == s.trace.kind);
      CHECK(back.flags == s.trace.flags);
      CHECK(back.size == s.trace.size);
      CHECK(back.addr == s.trace.addr);
      CHECK(back.site == s.trace.site);
      CHECK(back.threads.size() == s.trace.threads.size());
      CHECK(back.sites.size() == s.trace.sites.size());

      // Chunk boundaries: every chunk is full except the last and those a flush ended.
      TraceReader reader(file.path());
      CHECK(reader.complete());
      EventBatch batch;
      uint64_t expected_first = 0;
      size_t flush_index = 0;
      while (reader.Next(batch)) {
        CHECK(batch.first_event == expected_first);
        uint64_t end = std::min<uint64_t>(expected_first + chunk_events, s.trace.size_events());
        while (flush && flush_index < flushes.size() && flushes[flush_index] <= expected_first)
          ++flush_index;
        if (flush && flush_index < flushes.size())
          end = std::min<uint64_t>(end, flushes[flush_index]);
        CHECK(batch.count() == end - expected_first);
        expected_first += batch.count();
      }
      CHECK(expected_first == s.trace.size_events());
    }
  }
}

TEST_CASE("AppendRun checks every event's site", "[chunk-builder]") {
  TempFile file("bad-site.pecan");
  TraceWriter writer(file.path(), TraceMeta{}, TraceWriterOptions{4, 1});
  writer.AddThread(0, ThreadInfo{});
  writer.AddSite(0, SiteInfo{});
  writer.AddSite(1, SiteInfo{});
  const RunEvent good{EventKind::kRead, 0, 8, 0x1000, 1};
  const RunEvent bad{EventKind::kRead, 0, 8, 0x1008, 2};
  const RunEvent run[] = {good, good, good, good, good, bad, good};
  CHECK_THROWS_WITH(writer.AppendRun(0, OneByOne(run, std::size(run))),
                    file.path() + ": event 5 names site 2, which was not added first");
  CHECK(writer.events_written() == 5);
  CHECK_THROWS_WITH(writer.AppendRun(7, OneByOne(run, 1)),
                    file.path() + ": event 5 names thread 7, which was not added first");
  writer.Finish();
  Trace t = ReadTrace(file.path());
  CHECK(t.size_events() == 5);
  CHECK(t.site == std::vector<SiteId>(5, 1));
}

TEST_CASE("a chunk that cannot be written is never overrun", "[chunk-builder]") {
  // /dev/full fails every write that reaches it: the first full chunk's record does.
  std::FILE* probe = std::fopen("/dev/full", "wb");
  if (probe == nullptr) return;
  std::fclose(probe);
  pecan::ScopedWarningCapture warnings;  // the destructor's failed Finish
  Trace t = MakeRandomTrace(3, RandomTraceShape{20000, 5, 100});
  TraceWriter writer("/dev/full", TraceMeta{}, TraceWriterOptions{4096, 1});
  for (size_t i = 0; i < t.threads.size(); ++i)
    writer.AddThread(static_cast<ThreadId>(i), t.threads[i]);
  for (size_t i = 0; i < t.sites.size(); ++i) writer.AddSite(static_cast<SiteId>(i), t.sites[i]);
  size_t failures = 0;
  for (size_t i = 0; i < t.size_events(); ++i) {
    try {
      writer.Append(t.event(i));
    } catch (const PecanError& e) {
      CHECK_THAT(e.what(), Catch::Contains("/dev/full: cannot write"));
      ++failures;
    }
    // Once a write failed, every Append retries it and throws before taking its event: the
    // chunk never grows past its size.
    CHECK(writer.events_written() <= 4096);
  }
  CHECK(failures > 0);
}

TEST_CASE("the decoder refuses repeat counts that do not fit the chunk", "[chunk-builder]") {
  Trace t = MakeRandomTrace(7, RandomTraceShape{40, 3, 10});
  EventBatch batch = BatchOf(t, 0, t.size_events(), 0);
  proto::EventChunk chunk = ReferenceChunk(batch);
  ChunkDecoder decoder;
  EventBatch decoded;
  SECTION("one count too few") {
    chunk.clear_repeats_before();
    for (size_t i = 0; i + 1 < batch.count(); ++i) chunk.add_repeats_before(0);
    CHECK_THROWS_WITH(
        DecodeChunk(decoder, chunk, t.threads.size(), t.sites.size(), decoded, "f.pecan"),
        Catch::Contains("f.pecan: chunk repeat counts disagree"));
  }
  SECTION("more repeats than the recorder ever leaves out in a row") {
    chunk.clear_repeats_before();
    for (size_t i = 0; i < batch.count(); ++i) chunk.add_repeats_before(i == 5 ? 70000 : 0);
    CHECK_THROWS_WITH(
        DecodeChunk(decoder, chunk, t.threads.size(), t.sites.size(), decoded, "f.pecan"),
        Catch::Contains("event 5 claims 70000 repeats before it"));
  }
  SECTION("no column: no repeats") {
    chunk.clear_repeats_before();
    DecodeChunk(decoder, chunk, t.threads.size(), t.sites.size(), decoded, "f.pecan");
    CHECK(decoded.repeats_before.empty());
    CHECK(decoded.event(3).repeats_before == 0);
  }
}

TEST_CASE("chunks of format 1 (addresses relative to the thread) still decode", "[chunk-builder]") {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Trace t = MakeRandomTrace(seed, RandomTraceShape{200 * seed, 1 + seed, 40});
    EventBatch batch = BatchOf(t, 0, t.size_events(), 0);
    ChunkDecoder decoder;
    EventBatch decoded;
    DecodeChunk(decoder, ReferenceChunk(batch, 1), t.threads.size(), t.sites.size(), decoded, "old",
                1);
    RequireSameEvents(batch, decoded);
    // Read as format 2, the same bytes mean other addresses: the version decides.
    EventBatch misread;
    DecodeChunk(decoder, ReferenceChunk(batch, 1), t.threads.size(), t.sites.size(), misread, "old",
                2);
    CHECK(misread.addr != batch.addr);
  }
}
