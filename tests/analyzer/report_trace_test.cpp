// ReadReportTrace (report_trace.h) against the whole trace: random feasible traces with nested
// function calls, recursive re-acquisitions, heap blocks allocated, freed and reused, and named
// globals are written to a .pecan file; the text, JSON and SARIF reports of the whole trace's
// findings must come out byte for byte the same from the report trace, which holds far fewer
// events.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/analysis_trace.h"
#include "analyzer/event_context.h"
#include "analyzer/lockset_table.h"
#include "analyzer/report_json.h"
#include "analyzer/report_sarif.h"
#include "analyzer/report_text.h"
#include "analyzer/report_trace.h"
#include "tests/support/random_trace_generator.h"
#include "tests/support/trace_text.h"
#include "trace_format/error.h"
#include "trace_format/trace_writer.h"

using namespace pecan;

namespace {

constexpr uint64_t kHeap = 0x500000;   // heap slots 0x20 apart, blocks of 0-64 bytes
constexpr uint64_t kTable = 0x600000;  // a named global of 32 bytes
constexpr uint64_t kPrivate = 0x700000;

// `base` with report context inserted before its events, by the thread of the event: nested
// FUNC_ENTRY/FUNC_EXIT (and the odd FUNC_EXIT with no call open), recursive re-acquisitions of
// held locks (released before the lock's own release), ALLOC/FREE of heap blocks whose addresses
// are reused with other sizes (any thread frees), accesses to heap memory (allocated, freed or
// never allocated), to the named table and, with `filler`, that many thread-private accesses per
// event. Never inside a condition wait's UNLOCK, WAIT, LOCK.
Trace WithReportContext(const Trace& base, uint64_t seed, int filler = 0) {
  std::mt19937_64 random(seed);
  Trace out;
  out.meta = base.meta;
  out.threads = base.threads;
  out.sites = base.sites;
  out.names = base.names;
  out.names.push_back(AddressName{kTable, 32, "table"});
  auto emit = [&](ThreadId t, EventKind kind, uint64_t addr, uint32_t size) {
    out.sites.push_back(SiteInfo{kNoModule, out.sites.size()});
    out.push_back(Event{t, kind, 0, size, addr, static_cast<SiteId>(out.sites.size() - 1)});
  };
  struct ThreadState {
    int calls = 0;
    std::vector<std::pair<uint64_t, bool>> held;          // the base trace's holds
    std::map<std::pair<uint64_t, bool>, int> reacquired;  // open re-acquisitions
    EventKind last = EventKind::kUnspecified;
  };
  std::vector<ThreadState> threads(base.threads.size());
  std::vector<std::pair<uint64_t, uint64_t>> live;  // heap blocks: begin, extent
  auto release_kind = [](bool read) { return read ? EventKind::kReadUnlock : EventKind::kUnlock; };
  for (EventIndex i = 0; i < base.size_events(); ++i) {
    const ThreadId t = base.thread[i];
    const EventKind k = base.kind[i];
    ThreadState& thread = threads[t];
    const std::pair<uint64_t, bool> key{base.addr[i], k == EventKind::kReadUnlock};
    if (IsRelease(k)) {
      for (; thread.reacquired[key] > 0; --thread.reacquired[key])
        emit(t, release_kind(key.second), key.first, 0);
    }
    const bool may_insert = k != EventKind::kThreadBegin && k != EventKind::kThreadEnd &&
                            k != EventKind::kWait && thread.last != EventKind::kWait;
    thread.last = k;
    for (int f = 0; may_insert && f < filler; ++f)
      emit(t, random() % 2 ? EventKind::kWrite : EventKind::kRead,
           kPrivate + t * 0x1000 + 8 * (random() % 64), 8);
    for (int n = may_insert ? static_cast<int>(random() % 3) : 0; n > 0; --n) {
      switch (random() % 9) {
        case 0:
          if (thread.calls < 4) {
            emit(t, EventKind::kFuncEntry, 0, 0);
            ++thread.calls;
          }
          break;
        case 1:
          if (thread.calls > 0 || random() % 8 == 0) {
            emit(t, EventKind::kFuncExit, 0, 0);
            if (thread.calls > 0) --thread.calls;
          }
          break;
        case 2:
          if (!thread.held.empty()) {
            const auto& hold = thread.held[random() % thread.held.size()];
            emit(t, hold.second ? EventKind::kReadLock : EventKind::kLock, hold.first, 0);
            ++thread.reacquired[hold];
          }
          break;
        case 3:
          for (auto& [hold, open] : thread.reacquired) {
            if (open == 0) continue;
            emit(t, release_kind(hold.second), hold.first, 0);
            --open;
            break;
          }
          break;
        case 4: {
          const uint64_t begin = kHeap + 0x20 * (random() % 6);
          const uint32_t size = 16 * static_cast<uint32_t>(random() % 5);
          const uint64_t end = begin + std::max<uint64_t>(size, 1);
          const bool overlaps = std::any_of(live.begin(), live.end(), [&](const auto& block) {
            return block.first < end && begin < block.first + block.second;
          });
          if (!overlaps) {
            emit(t, EventKind::kAlloc, begin, size);
            live.emplace_back(begin, end - begin);
          }
          break;
        }
        case 5:
          if (!live.empty()) {
            const size_t b = random() % live.size();
            emit(t, EventKind::kFree, live[b].first, static_cast<uint32_t>(live[b].second));
            live.erase(live.begin() + static_cast<std::ptrdiff_t>(b));
          }
          break;
        case 6:
        case 7:
          emit(t, random() % 2 ? EventKind::kWrite : EventKind::kRead, kHeap + 8 * (random() % 20),
               8);
          break;
        default:
          emit(t, random() % 2 ? EventKind::kWrite : EventKind::kRead, kTable + 8 * (random() % 4),
               8);
          break;
      }
    }
    out.push_back(base.event(i));
    if (IsAcquire(k)) {
      thread.held.emplace_back(base.addr[i], k == EventKind::kReadLock);
    } else if (IsRelease(k)) {
      std::erase(thread.held, key);
    }
  }
  return out;
}

// The traces of `count` seeds run one after the other as one long run: each one's main thread is
// the run's T0 (begun once, ended once), its other threads get ids of their own, and each event a
// site of its own. Names keep the first meaning of an address.
Trace Concatenated(const test::RandomTraceGenerator& generator, uint64_t first_seed, int count) {
  Trace out;
  uint32_t main_children = 0;
  for (int n = 0; n < count; ++n) {
    const Trace part = generator.Generate(first_seed + static_cast<uint64_t>(n));
    const ThreadId offset = n == 0 ? 0 : static_cast<ThreadId>(out.threads.size() - 1);
    auto id = [offset](ThreadId t) { return t == 0 ? t : t + offset; };
    if (n == 0) {
      out.meta = part.meta;
      out.threads.push_back(part.threads[0]);
    }
    for (ThreadId t = 1; t < part.threads.size(); ++t) {
      ThreadInfo info = part.threads[t];
      if (info.parent == 0u) info.ordinal = main_children++;
      if (info.parent) info.parent = id(*info.parent);
      info.name = "T" + std::to_string(id(t));
      out.threads.push_back(info);
    }
    for (const AddressName& name : part.names) {
      if (std::none_of(out.names.begin(), out.names.end(),
                       [&](const AddressName& known) { return known.address == name.address; }))
        out.names.push_back(name);
    }
    for (EventIndex i = 0; i < part.size_events(); ++i) {
      Event e = part.event(i);
      if (e.thread == 0 && ((e.kind == EventKind::kThreadBegin && n > 0) ||
                            (e.kind == EventKind::kThreadEnd && n + 1 < count)))
        continue;
      e.thread = id(e.thread);
      if (e.kind == EventKind::kFork || e.kind == EventKind::kJoin)
        e.addr = id(static_cast<ThreadId>(e.addr));
      out.sites.push_back(SiteInfo{kNoModule, out.sites.size()});
      e.site = static_cast<SiteId>(out.sites.size() - 1);
      out.push_back(e);
    }
  }
  return out;
}

std::vector<EventIndex> EventsOfFindings(const std::vector<Finding>& findings) {
  std::vector<EventIndex> events;
  for (const Finding& f : findings) {
    events.insert(events.end(), f.events.begin(), f.events.end());
    events.insert(events.end(), f.overtaken.begin(), f.overtaken.end());
  }
  return events;
}

struct Reports {
  std::string text, json, sarif;
};

Reports WriteReports(const Trace& trace, const AnalysisResult& result) {
  const ReportOrigin origin{"traces/run.pecan", "0123abcd"};
  Reports reports;
  std::ostringstream text, json, sarif;
  Symbolizer text_symbolizer(trace), json_symbolizer(trace), sarif_symbolizer(trace);
  WriteTextReport(text, trace, result, text_symbolizer);
  WriteJsonReport(json, trace, result, json_symbolizer, origin);
  WriteSarifReport(sarif, trace, result, sarif_symbolizer, origin);
  return Reports{text.str(), json.str(), sarif.str()};
}

std::string TempPath(const char* name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

test::RandomTraceOptions GeneratorOptions() {
  test::RandomTraceOptions options;
  options.max_threads = 4;
  options.min_events = 20;
  options.max_events = 40;
  options.max_variables = 4;
  options.max_lock_depth = 3;
  options.atomics = true;
  options.read_locks = true;
  options.thread_begin_end = true;
  return options;
}

}  // namespace

TEST_CASE("reports from the report trace are byte-identical to reports from the whole trace",
          "[analysis][report_trace]") {
  const test::RandomTraceGenerator generator(GeneratorOptions());
  const std::string path = TempPath("pecan-report-trace-test.pecan");
  uint64_t recorded = 0, held = 0, findings = 0, heap_named = 0, with_calls = 0, with_locks = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Trace whole = WithReportContext(generator.Generate(seed), seed);
    // Chunks of 1 to 8 events and one of 2^16: the reported events' chunks are found by the
    // chunk index.
    WriteTrace(path, whole,
               TraceWriterOptions{seed % 9 == 0 ? 1u << 16 : static_cast<uint32_t>(seed % 9), 1});
    AnalysisOptions analysis;
    analysis.threads = 1;
    const AnalysisResult result = Analyze(whole, analysis);
    const std::vector<EventIndex> asked = EventsOfFindings(result.findings);
    std::vector<EventIndex> asked_and_past_the_end = asked;
    asked_and_past_the_end.push_back(whole.size_events() + seed % 3);  // ignored
    const Trace report_trace = ReadReportTrace(path, asked_and_past_the_end);
    AnalysisResult mapped = result;
    ToRecordedNumbers(whole, &mapped.findings);
    ToTraceNumbers(report_trace, &mapped.findings);
    INFO("seed " << seed << "\n" << test::DescribeTrace(whole));
    REQUIRE(report_trace.RecordedEvents() == whole.size_events());
    for (size_t i = 0; i < report_trace.size_events(); ++i)
      REQUIRE(report_trace.event(i) == whole.event(report_trace.origin[i]));

    const Reports expected = WriteReports(whole, result);
    const Reports got = WriteReports(report_trace, mapped);
    CHECK(got.text == expected.text);
    CHECK(got.json == expected.json);
    // Byte for byte once SARIF's raw Finding::events are in recorded numbers (see above).
    CHECK(got.sarif == expected.sarif);

    // What the reports and summaries read beyond the printed text: where each held lock was
    // acquired and released, the calls open, the thread's creation.
    const LocksetTable whole_locks(whole), report_locks(report_trace);
    const EventContexts whole_contexts(whole, asked);
    const std::vector<EventIndex> positions = [&] {
      std::vector<EventIndex> out;
      for (EventIndex e : asked)
        out.push_back(std::lower_bound(report_trace.origin.begin(), report_trace.origin.end(), e) -
                      report_trace.origin.begin());
      return out;
    }();
    const EventContexts report_contexts(report_trace, positions);
    for (size_t k = 0; k < asked.size(); ++k) {
      const EventIndex e = asked[k], p = positions[k];
      const auto& whole_held = whole_locks.Locks(whole_locks.Of(e));
      const auto& report_held = report_locks.Locks(report_locks.Of(p));
      REQUIRE(report_held.size() == whole_held.size());
      for (size_t h = 0; h < whole_held.size(); ++h) {
        CHECK(report_held[h].lock == whole_held[h].lock);
        CHECK(report_held[h].read_mode == whole_held[h].read_mode);
        CHECK(report_trace.origin[report_held[h].acquired_at] == whole_held[h].acquired_at);
        const auto whole_release = whole_locks.MatchingRelease(whole_held[h].acquired_at);
        const auto report_release = report_locks.MatchingRelease(report_held[h].acquired_at);
        REQUIRE(report_release.has_value() == whole_release.has_value());
        if (whole_release) CHECK(report_trace.origin[*report_release] == *whole_release);
      }
      std::vector<EventIndex> calls;
      for (EventIndex c : report_contexts.CallsAt(p)) calls.push_back(report_trace.origin[c]);
      CHECK(calls == whole_contexts.CallsAt(e));
      const auto whole_creation = whole_contexts.CreationOf(whole.thread[e]);
      const auto report_creation = report_contexts.CreationOf(whole.thread[e]);
      REQUIRE(report_creation.has_value() == whole_creation.has_value());
      if (whole_creation) CHECK(report_trace.origin[*report_creation] == *whole_creation);
      with_calls += !calls.empty();
      with_locks += !whole_held.empty();
    }
    recorded += whole.size_events();
    held += report_trace.size_events();
    findings += result.findings.size();
    for (size_t at = expected.text.find("heap block"); at != std::string::npos;
         at = expected.text.find("heap block", at + 1))
      ++heap_named;
  }
  std::filesystem::remove(path);
  // The mix must exercise every part: findings on heap blocks, in calls, under locks.
  CHECK(findings > 1000);
  CHECK(heap_named > 100);
  CHECK(with_calls > 100);
  CHECK(with_locks > 100);
  CHECK(held < recorded);
}

TEST_CASE("the report trace of a long trace holds few of its events", "[analysis][report_trace]") {
  const Trace whole = WithReportContext(
      Concatenated(test::RandomTraceGenerator(GeneratorOptions()), 1, 100), 7, 10);
  const std::string path = TempPath("pecan-report-trace-long.pecan");
  WriteTrace(path, whole, TraceWriterOptions{100, 1});
  AnalysisOptions analysis;
  analysis.threads = 1;
  const AnalysisResult result = Analyze(whole, analysis);
  const Trace report_trace = ReadReportTrace(path, EventsOfFindings(result.findings));
  AnalysisResult mapped = result;
  ToTraceNumbers(report_trace, &mapped.findings);
  const Reports expected = WriteReports(whole, result);
  const Reports got = WriteReports(report_trace, mapped);
  std::filesystem::remove(path);
  INFO(whole.size_events() << " events, " << result.findings.size() << " findings, "
                           << report_trace.size_events() << " in the report trace");
  CHECK(result.findings.size() > 10);
  CHECK(report_trace.size_events() * 10 < whole.size_events());
  CHECK(got.text == expected.text);
  CHECK(got.json == expected.json);
  CHECK(got.sarif == expected.sarif);
}

TEST_CASE("findings naming an event the report trace does not hold are refused",
          "[analysis][report_trace]") {
  const Trace whole = WithReportContext(test::RandomTraceGenerator().Generate(3), 3);
  const std::string path = TempPath("pecan-report-trace-absent.pecan");
  WriteTrace(path, whole);
  const Trace report_trace = ReadReportTrace(path, {whole.size_events() - 1, 2, 2});
  std::filesystem::remove(path);
  REQUIRE(std::is_sorted(report_trace.origin.begin(), report_trace.origin.end()));
  EventIndex absent = 0;
  while (std::binary_search(report_trace.origin.begin(), report_trace.origin.end(), absent))
    ++absent;
  Finding finding;
  finding.events = {2, whole.size_events() - 1};
  std::vector<Finding> findings{finding};
  ToTraceNumbers(report_trace, &findings);
  CHECK(report_trace.origin[findings[0].events[1]] == whole.size_events() - 1);
  finding.overtaken = {absent};
  findings = {finding};
  CHECK_THROWS_AS(ToTraceNumbers(report_trace, &findings), PecanError);
  CHECK(findings[0].events == finding.events);  // left as they were
  findings[0].overtaken.clear();
  findings[0].events = {whole.size_events()};  // past the end
  CHECK_THROWS_AS(ToTraceNumbers(report_trace, &findings), PecanError);
}

TEST_CASE("a file with a footer is read up to the last reported event, one without to its end",
          "[analysis][report_trace]") {
  const Trace whole =
      WithReportContext(Concatenated(test::RandomTraceGenerator(GeneratorOptions()), 21, 20), 5);
  const std::string path = TempPath("pecan-report-trace-up-to.pecan");
  WriteTrace(path, whole, TraceWriterOptions{100, 1});
  const EventIndex last = whole.size_events() / 3;
  // Thread lifecycle events come after it (every one is kept when the file is read to its end).
  EventIndex lifecycle_after = 0;
  for (EventIndex i = last + 1; i < whole.size_events(); ++i)
    lifecycle_after += whole.kind[i] == EventKind::kThreadEnd || whole.kind[i] == EventKind::kFork;
  REQUIRE(lifecycle_after > 0);

  const Trace report_trace = ReadReportTrace(path, {last / 2, last});
  REQUIRE(report_trace.size_events() > 0);
  CHECK(report_trace.origin.back() == last);
  CHECK(report_trace.RecordedEvents() == whole.size_events());
  const Trace of_none = ReadReportTrace(path, {});
  CHECK(of_none.size_events() == 0);
  CHECK(of_none.recorded_events == whole.size_events());

  // Without its trailer the file has no footer: its exit and count come at its end.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 1);
  const Trace cut_trace = ReadReportTrace(path, {last / 2, last});
  std::filesystem::remove(path);
  REQUIRE(cut_trace.size_events() > 0);
  CHECK(cut_trace.origin.back() > last);
  CHECK(cut_trace.RecordedEvents() == whole.size_events());
  // Up to `last`, the same events.
  const auto up_to_last = std::upper_bound(cut_trace.origin.begin(), cut_trace.origin.end(), last);
  CHECK(std::vector<EventIndex>(cut_trace.origin.begin(), up_to_last) == report_trace.origin);
}
