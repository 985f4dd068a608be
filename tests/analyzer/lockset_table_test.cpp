// LocksetTable: nesting, read mode, recursion, OML and matching release.
#include <catch2/catch.hpp>

#include "analyzer/lockset_table.h"
#include "trace_builder.h"

using pecan::EventIndex;
using pecan::HeldLock;
using pecan::kEmptyLockset;
using pecan::LocksetTable;
using pecan::testing::TraceBuilder;

TEST_CASE("Lockset: nested locks, OML and matching release", "[lockset]") {
  TraceBuilder b;
  const EventIndex outside = b.Write(0, 100);
  const EventIndex l1 = b.Lock(0, 1);
  const EventIndex in1 = b.Write(0, 100);
  const EventIndex l2 = b.Lock(0, 2);
  const EventIndex in12 = b.Write(0, 100);
  const EventIndex u2 = b.Unlock(0, 2);
  const EventIndex u1 = b.Unlock(0, 1);
  const EventIndex other = b.Lock(1, 2);
  const EventIndex other_in = b.Read(1, 100);
  LocksetTable locks(b.trace());

  CHECK(locks.Of(outside) == kEmptyLockset);
  CHECK(locks.Locks(locks.Of(in12)) == std::vector<HeldLock>{{1, false, l1}, {2, false, l2}});
  CHECK(locks.Of(l1) == kEmptyLockset);  // held from after the acquisition
  CHECK(locks.Of(l2) == locks.Of(in1));
  CHECK(locks.Of(u2) == locks.Of(in12));
  CHECK(locks.Of(u1) == locks.Of(in1));
  CHECK_FALSE(locks.OutermostAcquire(l1).has_value());
  CHECK(locks.OutermostAcquire(l2) == l1);
  CHECK(locks.OutermostAcquire(in12) == l1);
  CHECK(locks.OutermostAcquire(other_in) == other);
  CHECK_FALSE(locks.OutermostAcquire(outside).has_value());
  CHECK(locks.MatchingRelease(l1) == u1);
  CHECK(locks.MatchingRelease(l2) == u2);
  CHECK_FALSE(locks.MatchingRelease(other).has_value());
  CHECK_FALSE(locks.MatchingRelease(in1).has_value());
  CHECK(locks.Exclusive(in12, other_in));
  CHECK_FALSE(locks.Exclusive(in1, other_in));
  CHECK_FALSE(locks.Exclusive(outside, other_in));
}

TEST_CASE("Lockset: read-mode holds do not exclude each other", "[lockset]") {
  TraceBuilder b;
  b.ReadLock(0, 1);
  const EventIndex r0 = b.Read(0, 100);
  b.ReadUnlock(0, 1);
  b.ReadLock(1, 1);
  const EventIndex r1 = b.Read(1, 100);
  b.ReadUnlock(1, 1);
  b.Lock(2, 1);
  const EventIndex w2 = b.Write(2, 100);
  b.Unlock(2, 1);
  LocksetTable locks(b.trace());
  CHECK_FALSE(locks.Exclusive(r0, r1));
  CHECK(locks.Exclusive(r0, w2));
  CHECK(locks.Exclusive(w2, r1));
  CHECK(locks.Locks(locks.Of(r0)).front().read_mode);
}

TEST_CASE("Lockset: recursive re-acquire is folded into the first", "[lockset]") {
  TraceBuilder b;
  const EventIndex l = b.Lock(0, 1);
  b.Lock(0, 1);
  const EventIndex inner = b.Write(0, 100);
  b.Unlock(0, 1);
  const EventIndex still_held = b.Write(0, 100);
  const EventIndex u = b.Unlock(0, 1);
  const EventIndex after = b.Write(0, 100);
  b.Unlock(0, 9);  // never acquired: ignored
  LocksetTable locks(b.trace());
  CHECK(locks.Locks(locks.Of(inner)).size() == 1);
  CHECK(locks.Of(inner) == locks.Of(still_held));
  CHECK(locks.OutermostAcquire(still_held) == l);
  CHECK(locks.MatchingRelease(l) == u);
  CHECK(locks.Of(after) == kEmptyLockset);
}

TEST_CASE("Lockset: a condition wait releases and re-acquires", "[lockset]") {
  TraceBuilder b;
  const EventIndex l = b.Lock(0, 1);
  b.Unlock(0, 1);
  const EventIndex wait = b.Wait(0, 50);
  const EventIndex relock = b.Lock(0, 1);
  const EventIndex after = b.Read(0, 100);
  LocksetTable locks(b.trace());
  CHECK(locks.Of(wait) == kEmptyLockset);
  CHECK(locks.OutermostAcquire(after) == relock);
  CHECK(locks.OutermostAcquire(after) != l);
}
