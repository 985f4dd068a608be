// The writer's turn bookkeeping on its own (recorder/merge_turns.h): simulated rings of events
// numbered by a real interleaving — some by the global stamp, some by an object's sequence — are
// merged the way the writer merges them. Every event comes out, each sequence in order, each
// ring in order, and the merge never gets stuck; a number lost with a crashed thread is given up.
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <vector>

#include "recorder/merge_turns.h"

namespace pecan::rt {
namespace {

struct SimEvent {
  OrderKey key;
  bool published = true;  // false: its thread took the number, then died
};

// A real run: `rings` threads take turns at random; each step takes the next number of the global
// stamp or of one of a few object sequences (shared by all threads, as contended atomics and
// mutexes are).
std::vector<std::vector<SimEvent>> RandomRun(std::mt19937_64& rng, size_t rings, size_t steps,
                                             uint32_t sequences_used) {
  std::vector<std::vector<SimEvent>> out(rings);
  uint64_t stamp = 0;
  std::map<uint32_t, uint64_t> numbers;
  for (size_t i = 0; i < steps; ++i) {
    const size_t ring = rng() % rings;
    if (rng() % 3 == 0) {
      out[ring].push_back(SimEvent{OrderKey{OrderKey::kGlobalOrder, stamp++}});
    } else {
      const uint32_t sequence = uint32_t(rng() % sequences_used) * 997 % kObjectSequences;
      out[ring].push_back(SimEvent{OrderKey{sequence, numbers[sequence]++ & kSequenceNumberMask}});
    }
  }
  return out;
}

struct MergeResult {
  std::vector<std::pair<size_t, OrderKey>> written;  // (ring, key) in merge order
  uint64_t given_up = 0;
  bool stuck = false;
};

// Merges like TraceCollector::Pass/DrainRing: drain every ring that is not waiting, then the
// rings whose turn came; when nothing moves and events remain, give up (as the last drain does
// after a timeout) — or report being stuck when giving up is not allowed.
MergeResult Merge(const std::vector<std::vector<SimEvent>>& rings, bool allow_give_up,
                  const uint64_t* sequence_numbered = nullptr) {
  MergeTurns turns;
  MergeResult result;
  std::vector<size_t> head(rings.size(), 0);
  std::vector<bool> waiting(rings.size(), false);
  auto drain = [&](size_t r) {
    while (head[r] < rings[r].size() && rings[r][head[r]].published) {
      const OrderKey key = rings[r][head[r]].key;
      const MergeTurns::Turn turn = turns.Check(key, UINT64_MAX);
      if (turn == MergeTurns::Turn::kLater) {
        waiting[r] = true;
        turns.Wait(key, r);
        return;
      }
      if (turn == MergeTurns::Turn::kNow) {
        result.written.push_back({r, key});
        turns.Written(key);
      }
      ++head[r];
    }
  };
  std::vector<uint64_t> no_sequences(kObjectSequences, 0);
  if (sequence_numbered == nullptr) sequence_numbered = no_sequences.data();
  for (int pass = 0; pass < 1'000'000; ++pass) {
    const size_t before = result.written.size();
    for (size_t r = 0; r < rings.size(); ++r) {
      if (!waiting[r]) drain(r);
    }
    size_t ready;
    while (turns.TakeReady(UINT64_MAX, ready)) {
      waiting[ready] = false;
      drain(ready);
    }
    if (result.written.size() != before) continue;
    bool waiting_any = false;
    for (bool w : waiting) waiting_any |= w;
    if (!waiting_any) return result;
    if (!allow_give_up) {
      result.stuck = true;
      return result;
    }
    std::vector<OrderKey> present;  // what the rings still hold, as the writer scans it
    for (size_t r = 0; r < rings.size(); ++r) {
      for (size_t i = head[r]; i < rings[r].size() && rings[r][i].published; ++i) {
        present.push_back(rings[r][i].key);
      }
    }
    const uint64_t given_up = turns.GiveUp(present, sequence_numbered, UINT64_MAX);
    if (given_up == 0) {
      result.stuck = true;
      return result;
    }
    result.given_up += given_up;
  }
  result.stuck = true;
  return result;
}

// Each sequence's numbers come out consecutively; each ring's events in ring order.
void CheckOrders(const std::vector<std::vector<SimEvent>>& rings, const MergeResult& merged) {
  std::map<uint32_t, uint64_t> next;
  std::vector<size_t> position(rings.size(), 0);
  for (const auto& [ring, key] : merged.written) {
    uint64_t& expected = next[key.sequence];
    INFO("sequence " << key.sequence << " number " << key.number);
    REQUIRE(key.number == (expected & (key.global() ? ~uint64_t{0} : kSequenceNumberMask)));
    ++expected;
    while (!rings[ring][position[ring]].published) ++position[ring];
    REQUIRE(rings[ring][position[ring]].key.number == key.number);
    REQUIRE(rings[ring][position[ring]].key.sequence == key.sequence);
    ++position[ring];
  }
}

}  // namespace

TEST_CASE("the merge writes every ring's events with each sequence in order, never stuck",
          "[recorder][merge]") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    const size_t rings = 1 + rng() % 8;
    auto run = RandomRun(rng, rings, 50 + rng() % 400, 1 + uint32_t(rng() % 5));
    MergeResult merged = Merge(run, /*allow_give_up=*/false);
    REQUIRE_FALSE(merged.stuck);
    size_t total = 0;
    for (const auto& ring : run) total += ring.size();
    REQUIRE(merged.written.size() == total);
    CheckOrders(run, merged);
  }
}

TEST_CASE("a ring waiting in an object sequence is handed back as soon as that sequence moves",
          "[recorder][merge]") {
  MergeTurns turns;
  const OrderKey first{5, 0}, second{5, 1}, third{5, 2};
  CHECK(turns.Check(second, UINT64_MAX) == MergeTurns::Turn::kLater);
  turns.Wait(third, 2);
  turns.Wait(second, 1);
  size_t ready;
  CHECK_FALSE(turns.TakeReady(UINT64_MAX, ready));
  REQUIRE(turns.Check(first, UINT64_MAX) == MergeTurns::Turn::kNow);
  turns.Written(first);
  REQUIRE(turns.TakeReady(UINT64_MAX, ready));
  CHECK(ready == 1);
  CHECK_FALSE(turns.TakeReady(UINT64_MAX, ready));  // ring 2 still waits for number 1
  turns.Written(second);
  REQUIRE(turns.TakeReady(UINT64_MAX, ready));
  CHECK(ready == 2);
  // Other sequences and the global stamp are independent of sequence 5.
  CHECK(turns.Check(OrderKey{6, 0}, UINT64_MAX) == MergeTurns::Turn::kNow);
  CHECK(turns.Check(OrderKey{OrderKey::kGlobalOrder, 0}, UINT64_MAX) == MergeTurns::Turn::kNow);
  // A number behind the sequence's count is past (given up earlier).
  turns.Written(third);
  CHECK(turns.Check(second, UINT64_MAX) == MergeTurns::Turn::kPast);
}

TEST_CASE("global stamps at or above the limit are never due", "[recorder][merge]") {
  MergeTurns turns;
  const OrderKey zero{OrderKey::kGlobalOrder, 0};
  CHECK(turns.Check(zero, 0) == MergeTurns::Turn::kLater);
  turns.Wait(zero, 3);
  size_t ready;
  CHECK_FALSE(turns.TakeReady(0, ready));
  REQUIRE(turns.TakeReady(1, ready));
  CHECK(ready == 3);
}

TEST_CASE("numbers lost with a crashed thread are given up and the rest is written",
          "[recorder][merge]") {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 100; ++round) {
    auto run = RandomRun(rng, 2 + rng() % 5, 100 + rng() % 200, 1 + uint32_t(rng() % 3));
    // Ring 0 dies after taking a number: its events from some point on are never published.
    if (run[0].empty()) continue;
    const size_t cut = rng() % run[0].size();
    for (size_t i = cut; i < run[0].size(); ++i) run[0][i].published = false;
    std::vector<uint64_t> numbered(kObjectSequences, 0);
    for (const auto& ring : run) {
      for (const SimEvent& e : ring) {
        if (!e.key.global())
          numbered[e.key.sequence] = std::max(numbered[e.key.sequence], e.key.number + 1);
      }
    }
    MergeResult merged = Merge(run, /*allow_give_up=*/true, numbered.data());
    REQUIRE_FALSE(merged.stuck);
    size_t published = 0;
    for (const auto& ring : run) {
      for (const SimEvent& e : ring) published += e.published;
    }
    // Only the dead ring's numbers are given up: every published event is written.
    CHECK(merged.written.size() == published);
    // Written events keep their ring's order and each sequence increasing.
    std::map<uint32_t, int64_t> last;
    for (const auto& [ring, key] : merged.written) {
      auto found = last.find(key.sequence);
      if (found != last.end()) CHECK(int64_t(key.number) > found->second);
      last[key.sequence] = int64_t(key.number);
    }
  }
}

}  // namespace pecan::rt
