// Self-test of BruteForceOracle on hand-built traces whose anomalies are known.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/support/brute_force_oracle.h"
#include "tests/support/trace_builder.h"
#include "tests/support/trace_text.h"

using namespace pecan;
using namespace pecan::test;

namespace {

std::vector<OracleAnomaly> Of(const BruteForceOracle& oracle, const std::string& pattern) {
  std::vector<OracleAnomaly> out;
  for (const auto& a : oracle.Anomalies())
    if (a.pattern == pattern) out.push_back(a);
  return out;
}

bool Has(const BruteForceOracle& oracle, const OracleAnomaly& wanted) {
  const auto& all = oracle.Anomalies();
  return std::find(all.begin(), all.end(), wanted) != all.end();
}

}  // namespace

TEST_CASE("oracle finds the race in a two-event trace") {
  TraceBuilder b;
  b.Write(0, "x");
  b.Read(1, "x");
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  REQUIRE(oracle.Anomalies().size() == 1);
  const OracleAnomaly& race = oracle.Anomalies()[0];
  CHECK(race == OracleAnomaly{"race", "W-R", {0, 1}});
  CHECK(oracle.ObservedInTrace(race));
}

TEST_CASE("oracle: no race when both accesses hold the same lock") {
  TraceBuilder b;
  b.Lock(0, "m");
  b.Write(0, "x");
  b.Unlock(0, "m");
  b.Lock(1, "m");
  b.Read(1, "x");
  b.Unlock(1, "m");
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  CHECK(Of(oracle, "race").empty());
  CHECK(oracle.Candidates().size() == 1);  // the pair is a candidate, just never adjacent
}

TEST_CASE("oracle: read-read is no race, and accesses to different variables do not conflict") {
  TraceBuilder b;
  b.Read(0, "x");
  b.Read(1, "x");
  b.Write(0, "y");
  b.Write(1, "z");
  Trace trace = b.Build();
  CHECK(BruteForceOracle(trace).Anomalies().empty());
}

TEST_CASE("oracle: races predicted across critical sections (lock order is not POR)") {
  // T0 writes x, then runs a critical section; T1 runs its own, then reads x. In the trace the
  // accesses are far apart, but swapping the critical sections makes them adjacent.
  TraceBuilder b;
  b.Write(0, "x");
  b.Lock(0, "m");
  b.Unlock(0, "m");
  b.Lock(1, "m");
  b.Unlock(1, "m");
  b.Read(1, "x");
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  OracleAnomaly race{"race", "W-R", {0, 5}};
  REQUIRE(Has(oracle, race));
  CHECK_FALSE(oracle.ObservedInTrace(race));
  auto witness = oracle.Witness(race);
  REQUIRE(witness);
  CHECK(oracle.IsFeasible(*witness));
  CHECK(BruteForceOracle::Exhibits(*witness, race));
}

TEST_CASE("oracle: fork/join, notify/wait and release/acquire orders prevent races") {
  SECTION("fork and join") {
    TraceBuilder b;
    b.Write(0, "x");
    b.Fork(0, 1);
    b.Write(1, "x");
    b.Join(0, 1);
    b.Read(0, "x");
    Trace trace = b.Build();
    CHECK(BruteForceOracle(trace).Anomalies().empty());
  }
  SECTION("notify wakes the wait") {
    TraceBuilder b;
    b.Lock(1, "m");
    b.Unlock(1, "m");  // condition wait: UNLOCK(m) WAIT(c) LOCK(m)
    b.Write(0, "x");
    b.Lock(0, "m");
    b.Notify(0, "c");
    b.Unlock(0, "m");
    b.Wait(1, "c");
    b.Lock(1, "m");
    b.Read(1, "x");
    b.Unlock(1, "m");
    Trace trace = b.Build();
    BruteForceOracle oracle(trace);
    CHECK(oracle.model().CrossPredecessors(6) == std::vector<EventIndex>{4});
    CHECK(Of(oracle, "race").empty());
  }
  SECTION("a timed-out wait orders nothing") {
    TraceBuilder b;
    b.Lock(1, "m");
    b.Unlock(1, "m");
    b.Write(0, "x");
    b.Wait(1, "c", /*timed_out=*/true);
    b.Lock(1, "m");
    b.Read(1, "x");
    b.Unlock(1, "m");
    Trace trace = b.Build();
    CHECK(Has(BruteForceOracle(trace), OracleAnomaly{"race", "W-R", {2, 5}}));
  }
  SECTION("release store -> acquire load that read it") {
    TraceBuilder b;
    b.Write(0, "x");
    b.AtomicStore(0, "flag", MemoryOrder::kRelease);
    b.AtomicLoad(1, "flag", MemoryOrder::kAcquire);
    b.Read(1, "x");
    Trace trace = b.Build();
    BruteForceOracle oracle(trace);
    CHECK(oracle.Anomalies().empty());
    // Relaxed atomics do not order anything.
    TraceBuilder r;
    r.Write(0, "x");
    r.AtomicStore(0, "flag", MemoryOrder::kRelaxed);
    r.AtomicLoad(1, "flag", MemoryOrder::kAcquire);
    r.Read(1, "x");
    Trace relaxed = r.Build();
    CHECK(Has(BruteForceOracle(relaxed), OracleAnomaly{"race", "W-R", {0, 3}}));
  }
}

TEST_CASE("oracle: read-mode holders share the lock, so their accesses may race") {
  TraceBuilder b;
  b.ReadLock(0, "rw");
  b.Write(0, "x");
  b.ReadUnlock(0, "rw");
  b.ReadLock(1, "rw");
  b.Write(1, "x");
  b.ReadUnlock(1, "rw");
  Trace trace = b.Build();
  CHECK(Has(BruteForceOracle(trace), OracleAnomaly{"race", "W-W", {1, 4}}));
}

TEST_CASE("oracle: atomicity violation inside one critical section") {
  // T0: lock(m) r(x) w(x) unlock(m) — check-then-act; T1: w(x) without the lock.
  TraceBuilder b;
  b.Lock(0, "m");
  b.Read(0, "x");
  b.Write(0, "x");
  b.Unlock(0, "m");
  b.Write(1, "x");
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  OracleAnomaly violation{"atomicity", "R-W-W", {1, 4, 2}};
  CHECK(Has(oracle, violation));
  CHECK(Has(oracle, OracleAnomaly{"asv", "R W' W", {1, 4, 2}}));
  CHECK_FALSE(oracle.ObservedInTrace(violation));
  CHECK(Of(oracle, "race").size() == 2);  // w(x) of T1 races with both, adjacently

  SECTION("not when the interrupting write takes the lock") {
    TraceBuilder locked;
    locked.Lock(0, "m");
    locked.Read(0, "x");
    locked.Write(0, "x");
    locked.Unlock(0, "m");
    locked.Lock(1, "m");
    locked.Write(1, "x");
    locked.Unlock(1, "m");
    Trace locked_trace = locked.Build();
    CHECK(BruteForceOracle(locked_trace).Anomalies().empty());
  }
  SECTION("not when the accesses are in two regions (separate critical sections)") {
    TraceBuilder split;
    split.Lock(0, "m");
    split.Read(0, "x");
    split.Unlock(0, "m");
    split.Lock(0, "m");
    split.Write(0, "x");
    split.Unlock(0, "m");
    split.Write(1, "x");
    Trace split_trace = split.Build();
    BruteForceOracle split_oracle(split_trace);
    CHECK(Of(split_oracle, "atomicity").empty());
    CHECK(Of(split_oracle, "asv").empty());
  }
}

TEST_CASE("oracle: W-W-W counts for asv but not for atomicity") {
  TraceBuilder b;
  b.Lock(0, "m");
  b.Write(0, "x");
  b.Write(0, "x");
  b.Unlock(0, "m");
  b.Write(1, "x");
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  CHECK(Of(oracle, "atomicity").empty());
  CHECK(Has(oracle, OracleAnomaly{"asv", "W W' W", {1, 4, 2}}));
}

TEST_CASE("oracle: only consecutive accesses of the region's thread form atomicity triples") {
  // r(x) r(x) w(x) in one region: (r1, w', r2) and (r2, w', w) qualify, (r1, w', w) does not.
  TraceBuilder b;
  b.Lock(0, "m");
  b.Read(0, "x");
  b.Read(0, "x");
  b.Write(0, "x");
  b.Unlock(0, "m");
  b.Write(1, "x");
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  CHECK(Has(oracle, OracleAnomaly{"atomicity", "R-W-R", {1, 5, 2}}));
  CHECK(Has(oracle, OracleAnomaly{"atomicity", "R-W-W", {2, 5, 3}}));
  CHECK(Of(oracle, "atomicity").size() == 2);
}

TEST_CASE("oracle: two-location atomic-set violation W(l1) R'(l1) R'(l2) W(l2)") {
  TraceBuilder b;
  b.Lock(0, "m");
  b.Write(0, "x");
  b.Write(0, "y");
  b.Unlock(0, "m");
  b.Lock(1, "n");
  b.Read(1, "x");
  b.Read(1, "y");
  b.Unlock(1, "n");
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  CHECK(Has(oracle, OracleAnomaly{"asv", "W(l1) R'(l1) R'(l2) W(l2)", {1, 5, 6, 2}}));
  // Seen from the reader's region: both writes between its two reads.
  CHECK(Has(oracle, OracleAnomaly{"asv", "R(l1) W'(l1) W'(l2) R(l2)", {5, 1, 2, 6}}));
  // The crossed variants need the other region's accesses out of program order.
  CHECK(Of(oracle, "asv").size() == 2);

  SECTION("gone when both regions use the same lock") {
    TraceBuilder same;
    same.Lock(0, "m");
    same.Write(0, "x");
    same.Write(0, "y");
    same.Unlock(0, "m");
    same.Lock(1, "m");
    same.Read(1, "x");
    same.Read(1, "y");
    same.Unlock(1, "m");
    Trace same_trace = same.Build();
    CHECK(BruteForceOracle(same_trace).Anomalies().empty());
  }
}

TEST_CASE("oracle: anomalies visible only in a prefix that later deadlocks still count") {
  // T0: lock(a) w(x) lock(b) ...; T1: lock(b) w(x) lock(a) ...: the writes can be adjacent only
  // while each thread holds its first lock, a state from which nobody can finish.
  TraceBuilder b;
  b.Lock(0, "a");
  b.Write(0, "x");
  b.Lock(0, "b");
  b.Unlock(0, "b");
  b.Unlock(0, "a");
  b.Lock(1, "b");
  b.Write(1, "x");
  b.Lock(1, "a");
  b.Unlock(1, "a");
  b.Unlock(1, "b");
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  OracleAnomaly race{"race", "W-W", {1, 6}};
  CHECK(Has(oracle, race));
  bool in_complete = false;
  oracle.ForEachSchedule([&](const std::vector<EventIndex>& s) {
    in_complete = in_complete || BruteForceOracle::Exhibits(s, race);
    return true;
  });
  CHECK_FALSE(in_complete);
  uint64_t stuck = 0;
  oracle.ForEachSchedule(
      [&](const std::vector<EventIndex>& s) {
        if (s.size() < trace.size_events()) ++stuck;
        return true;
      },
      UINT64_MAX, /*include_stuck=*/true);
  CHECK(stuck == 6);  // the interleavings of lock(a) w(x) with lock(b) w(x)
}

TEST_CASE("oracle: feasibility check names the broken rule") {
  TraceBuilder b;
  b.Lock(0, "m");    // 0
  b.Write(0, "x");   // 1
  b.Unlock(0, "m");  // 2
  b.Fork(0, 1);      // 3
  b.Lock(1, "m");    // 4
  b.Read(1, "x");    // 5
  b.Unlock(1, "m");  // 6
  Trace trace = b.Build();
  BruteForceOracle oracle(trace);
  std::string why;
  CHECK(oracle.IsFeasible({0, 1, 2, 3, 4, 5, 6}, true, &why));
  CHECK(oracle.IsFeasible({0, 1, 2, 3}, false, &why));
  CHECK_FALSE(oracle.IsFeasible({0, 1, 2, 3}, true, &why));
  CHECK(why.find("did not finish") != std::string::npos);
  CHECK_FALSE(oracle.IsFeasible({0, 2, 1}, false, &why));
  CHECK(why.find("program order") != std::string::npos);
  CHECK_FALSE(oracle.IsFeasible({4}, false, &why));
  CHECK(why.find("POR predecessor 3") != std::string::npos);
  CHECK_FALSE(oracle.IsFeasible({0, 1, 2, 0}, false, &why));
  CHECK(why.find("repeated") != std::string::npos);

  TraceBuilder nofork;
  nofork.Lock(0, "m");
  nofork.Lock(1, "m");
  nofork.Unlock(1, "m");
  nofork.Unlock(0, "m");
  Trace two_locks = nofork.Build();
  BruteForceOracle locks(two_locks);
  CHECK_FALSE(locks.IsFeasible({0, 1}, false, &why));
  CHECK(why.find("lock another thread holds") != std::string::npos);
}

TEST_CASE("oracle enumerates every schedule") {
  TraceBuilder b;
  b.Write(0, "x");
  b.Write(0, "y");
  b.Write(1, "z");
  b.Write(1, "w");
  Trace free_trace = b.Build();
  CHECK(BruteForceOracle(free_trace).ForEachSchedule([](const auto&) { return true; }) == 6);
  CHECK(BruteForceOracle(free_trace).ReachableStates() == 9);

  TraceBuilder l;
  l.Lock(0, "m");
  l.Unlock(0, "m");
  l.Lock(1, "m");
  l.Unlock(1, "m");
  Trace locked = l.Build();
  BruteForceOracle oracle(locked);
  std::vector<std::vector<EventIndex>> all;
  CHECK(oracle.ForEachSchedule([&](const auto& s) {
    all.push_back(s);
    return true;
  }) == 2);
  CHECK(all == std::vector<std::vector<EventIndex>>{{0, 1, 2, 3}, {2, 3, 0, 1}});
  CHECK(oracle.ForEachSchedule([](const auto&) { return true; }, 1) == 1);
}

TEST_CASE("oracle regions: condition wait and notify split critical sections") {
  TraceBuilder b;
  b.Lock(0, "m");        // 0  region A
  b.Read(0, "x");        // 1  A
  b.Unlock(0, "m");      // 2  A (the wait's release)
  b.Wait(0, "c", true);  // 3  own unit
  b.Lock(0, "m");        // 4  region B
  b.Write(0, "x");       // 5  B
  b.Notify(0, "c");      // 6  own unit
  b.Write(0, "y");       // 7  region C
  b.Unlock(0, "m");      // 8  C
  b.Write(0, "x");       // 9  single-event unit
  Trace trace = b.Build();
  OracleModel model(trace);
  CHECK(model.UnitOf(0) == model.UnitOf(2));
  CHECK(model.IsRegion(model.UnitOf(1)));
  CHECK_FALSE(model.IsRegion(model.UnitOf(3)));
  CHECK(model.UnitOf(4) == model.UnitOf(5));
  CHECK(model.UnitOf(5) != model.UnitOf(1));
  CHECK(model.UnitOf(7) == model.UnitOf(8));
  CHECK(model.UnitOf(7) != model.UnitOf(5));
  CHECK_FALSE(model.IsRegion(model.UnitOf(9)));
}

TEST_CASE("ToOracleAnomaly and SameAnomaly compare with analyzer findings") {
  Finding finding;
  finding.pattern = "race";
  finding.variant = "R-W";
  finding.events = {7, 3};
  CHECK(SameAnomaly(OracleAnomaly{"race", "W-R", {3, 7}}, finding));
  finding.pattern = "atomicity";
  finding.events = {1, 4, 2};
  CHECK(SameAnomaly(OracleAnomaly{"atomicity", "R-W-W", {1, 4, 2}}, finding));
  CHECK_FALSE(SameAnomaly(OracleAnomaly{"atomicity", "R-W-W", {2, 4, 1}}, finding));
}
