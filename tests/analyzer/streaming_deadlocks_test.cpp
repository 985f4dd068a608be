// Streaming deadlock prediction (streaming_analysis.h: the lock-order graph fed from the file's
// events, with HeldLocks and PorClocks) against Analyze on the whole trace: random feasible
// traces with nested locks up to three deep, read locks, condition waits and forks/joins, some
// acquisitions turned into trylocks, lock-heavy runs of workers nesting a few locks in random
// orders, and accesses the analysis has no use for, written to a
// .pecan file. The streaming analysis must report exactly Analyze's deadlocks — events, variant,
// witness counts, ids — alone and beside the race search.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/streaming_analysis.h"
#include "same_findings.h"
#include "tests/support/random_trace_generator.h"
#include "tests/support/trace_text.h"
#include "tests/support/unused_accesses.h"
#include "trace_format/trace_writer.h"

using namespace pecan;

namespace {

// `base` with some acquisitions marked trylock (bit 0 of the flags) and, with `fold_sites`, the
// sites folded onto a few, so nestings of one edge share sites and repeat.
Trace Mutated(const Trace& base, uint64_t seed, bool fold_sites) {
  std::mt19937_64 random(seed * 6151 + 3);
  const uint32_t sites = 3 + random() % 8;
  Trace out;
  out.meta = base.meta;
  out.threads = base.threads;
  out.sites = base.sites;
  out.names = base.names;
  for (EventIndex i = 0; i < base.size_events(); ++i) {
    Event e = base.event(i);
    if ((e.kind == EventKind::kLock || e.kind == EventKind::kReadLock) && random() % 10 == 0)
      e.flags |= 1;
    if (fold_sites && random() % 2 == 0) e.site = e.site % sites;
    out.push_back(e);
  }
  return out;
}

// A run of lock-heavy workers, simulated so the trace is feasible: each worker takes two or
// three of a few locks nested in a random order (some in read mode, some as trylocks that got
// the lock), a few times; main forks them, some only after joining others (so their nestings
// are ordered). On half of the runs the sites depend only on the worker's role and whether the
// lock is its first, so one cycle of sites shows up on several lock pairs. None if the simulation
// deadlocks.
std::optional<Trace> LockHeavy(uint64_t seed) {
  std::mt19937_64 random(seed * 104729 + 11);
  struct Op {
    EventKind kind;
    uint64_t addr;
    uint8_t flags;
    SiteId site;
  };
  const uint32_t workers = 2 + random() % 4;
  const uint32_t locks = 3 + random() % 3;
  const bool shared_sites = random() % 2 == 0;
  std::vector<std::vector<Op>> program(workers + 1);
  for (uint32_t w = 1; w <= workers; ++w) {
    const uint32_t role = shared_sites ? w % 2 : w;
    for (uint32_t section = 0, n = 1 + random() % 3; section < n; ++section) {
      std::vector<uint64_t> order(locks);
      for (uint32_t k = 0; k < locks; ++k) order[k] = 0x1000 + 0x40 * k;
      std::shuffle(order.begin(), order.end(), random);
      order.resize(2 + random() % 2);
      std::vector<bool> read(order.size());
      for (size_t d = 0; d < order.size(); ++d) {
        read[d] = random() % 6 == 0;
        const uint8_t flags = random() % 12 == 0 ? 1 : 0;
        // Shared sites: like a transfer(from, to) taking `from` at one line and `to` at the next,
        // whatever the accounts; otherwise a site per depth and section.
        const SiteId site = static_cast<SiteId>(
            1 + role * 8 + (shared_sites ? std::min<size_t>(d, 1) : d + 4 * (section % 2)));
        program[w].push_back(
            {read[d] ? EventKind::kReadLock : EventKind::kLock, order[d], flags, site});
        program[w].push_back({EventKind::kWrite, 0x9000 + 8 * (random() % 3), 0, 60});
      }
      for (size_t d = order.size(); d-- > 0;)
        program[w].push_back(
            {read[d] ? EventKind::kReadUnlock : EventKind::kUnlock, order[d], 0, 61});
    }
  }
  // Main forks the workers in order; before forking a later one it may join an earlier one.
  std::vector<bool> joined(workers + 1, false);
  for (uint32_t w = 1; w <= workers; ++w) {
    if (w > 1 && random() % 4 == 0 && !joined[w - 1]) {
      program[0].push_back({EventKind::kJoin, w - 1, 0, 62});
      joined[w - 1] = true;
    }
    program[0].push_back({EventKind::kFork, w, 0, 63});
  }
  for (uint32_t w = 1; w <= workers; ++w)
    if (!joined[w]) program[0].push_back({EventKind::kJoin, w, 0, 62});

  Trace out;
  out.threads.resize(workers + 1);
  for (uint32_t w = 1; w <= workers; ++w) {
    out.threads[w].parent = 0;
    out.threads[w].ordinal = w - 1;
  }
  out.sites.resize(64);
  std::vector<size_t> next(workers + 1, 0);
  std::vector<bool> started(workers + 1, false);
  started[0] = true;
  std::map<uint64_t, std::pair<ThreadId, uint32_t>> holder;  // lock -> (writer or ~0, readers)
  auto enabled = [&](ThreadId t) {
    if (!started[t] || next[t] == program[t].size()) return false;
    const Op& op = program[t][next[t]];
    const auto held = holder.find(op.addr);
    if (op.kind == EventKind::kLock) return held == holder.end();
    if (op.kind == EventKind::kReadLock)
      return held == holder.end() || held->second.first == ~ThreadId{0};
    if (op.kind == EventKind::kJoin) return next[op.addr] == program[op.addr].size();
    return true;
  };
  for (;;) {
    std::vector<ThreadId> ready;
    bool unfinished = false;
    for (ThreadId t = 0; t <= workers; ++t) {
      unfinished |= next[t] < program[t].size();
      if (enabled(t)) ready.push_back(t);
    }
    if (!unfinished) break;
    if (ready.empty()) return std::nullopt;  // the simulated run deadlocked
    const ThreadId t = ready[random() % ready.size()];
    const Op& op = program[t][next[t]++];
    switch (op.kind) {
      case EventKind::kLock:
        holder[op.addr] = {t, 0};
        break;
      case EventKind::kReadLock:
        holder.try_emplace(op.addr, ~ThreadId{0}, 0).first->second.second++;
        break;
      case EventKind::kUnlock:
        holder.erase(op.addr);
        break;
      case EventKind::kReadUnlock:
        if (--holder[op.addr].second == 0) holder.erase(op.addr);
        break;
      case EventKind::kFork:
        started[op.addr] = true;
        break;
      default:
        break;
    }
    out.push_back(
        Event{t, op.kind, op.flags, op.kind == EventKind::kWrite ? 8u : 0u, op.addr, op.site});
  }
  return out;
}

}  // namespace

TEST_CASE("streaming deadlock prediction finds what Analyze finds on the whole trace",
          "[analysis][streaming_deadlocks][deadlock]") {
  test::RandomTraceOptions options;
  options.min_threads = 3;
  options.max_threads = 5;
  options.min_events = 40;
  options.max_events = 90;
  options.max_variables = 3;
  options.max_locks = 4;
  options.max_lock_depth = 3;
  options.read_locks = true;
  options.atomics = true;
  const test::RandomTraceGenerator generator(options);
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("pecan-streaming-deadlocks-test-" + std::to_string(::getpid()) + ".pecan"))
          .string();
  uint64_t deadlocks = 0, repeated = 0, longer = 0, traces_with = 0;
  uint64_t skipped = 0;
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    // Odd seeds: the generator's traces (waits, atomics, deeper mixes); even: lock-heavy runs.
    std::optional<Trace> base =
        seed % 2 == 1 ? std::optional<Trace>(generator.Generate(seed)) : LockHeavy(seed);
    if (!base) {
      ++skipped;
      continue;
    }
    const Trace whole = Mutated(test::WithUnusedAccesses(*base, seed), seed, seed % 2 == 1);
    WriteTrace(path, whole);
    AnalysisOptions analysis;
    analysis.patterns = seed % 3 == 0 ? "race,deadlock" : "deadlock";
    analysis.threads = 1;
    REQUIRE(Streams(analysis));
    INFO("seed " << seed << ", patterns " << analysis.patterns << "\n"
                 << test::DescribeTrace(whole));
    const AnalysisResult expected = Analyze(whole, analysis);
    AnalysisResult got = AnalyzeStreaming(path, analysis);
    FinishFindings(whole, analysis, &got);  // the ids
    test::CheckSameFindings(got.findings, expected.findings);
    bool any = false;
    for (const Finding& a : got.findings) {
      if (a.pattern != "deadlock") continue;
      any = true;
      ++deadlocks;
      repeated += a.witnesses > 1;
      longer += a.events.size() > 4;
    }
    traces_with += any;
    CHECK(got.stats.events == expected.stats.events);
  }
  std::filesystem::remove(path);
  // The mix must exercise the search: many traces with cycles, some of more than two locks, and
  // cycles found on several lock pairs.
  CHECK(skipped < 350);
  CHECK(traces_with > 100);
  CHECK(deadlocks > 150);
  CHECK(longer > 15);
  CHECK(repeated > 3);
}
