// PorIndex: each kind of thread-communication edge, and that lock release -> acquire is none.
#include <catch2/catch.hpp>

#include "analyzer/por_index.h"
#include "trace_builder.h"

using pecan::EventIndex;
using pecan::MemoryOrder;
using pecan::PorIndex;
using pecan::testing::TraceBuilder;

TEST_CASE("POR: program order, fork and join", "[por]") {
  TraceBuilder b;
  const EventIndex w0 = b.Write(0, 100);
  const EventIndex fork = b.Fork(0, 1);
  const EventIndex after_fork = b.Write(0, 200);
  const EventIndex begin = b.Begin(1);
  const EventIndex child_write = b.Write(1, 100);
  const EventIndex end = b.End(1);
  const EventIndex join = b.Join(0, 1);
  const EventIndex after_join = b.Read(0, 100);
  PorIndex por(b.trace());

  CHECK(por.Ordered(w0, fork));
  CHECK(por.Ordered(w0, child_write));
  CHECK(por.Ordered(fork, begin));
  CHECK(por.Concurrent(after_fork, child_write));
  CHECK(por.Ordered(child_write, after_join));
  CHECK(por.Ordered(end, join));
  CHECK_FALSE(por.Ordered(after_fork, end));
  CHECK_FALSE(por.Ordered(after_join, w0));
  CHECK_FALSE(por.Ordered(w0, w0));
  CHECK(por.LocalIndex(after_join) == 4);
  CHECK(por.ThreadEvents(1) == std::vector<EventIndex>{begin, child_write, end});
  CHECK(por.SyncEdges().size() == 2);
}

TEST_CASE("POR: lock release -> acquire is not an edge", "[por]") {
  TraceBuilder b;
  b.Lock(0, 1);
  const EventIndex w = b.Write(0, 100);
  b.Unlock(0, 1);
  b.Lock(1, 1);
  const EventIndex r = b.Read(1, 100);
  b.Unlock(1, 1);
  PorIndex por(b.trace());
  CHECK(por.Concurrent(w, r));
}

TEST_CASE("POR: notify -> the wait it woke, timed-out waits get no edge", "[por]") {
  TraceBuilder b;
  // T1 waits (UNLOCK m, WAIT cv, LOCK m); T0 notifies in between.
  b.Lock(1, 7);
  const EventIndex before_wait = b.Write(1, 300);
  b.Unlock(1, 7);
  b.Lock(0, 7);
  const EventIndex before_notify = b.Write(0, 100);
  const EventIndex notify = b.Notify(0, 50);
  b.Unlock(0, 7);
  const EventIndex wait = b.Wait(1, 50);
  b.Lock(1, 7);
  const EventIndex after_wait = b.Read(1, 100);
  b.Unlock(1, 7);
  // A second wait that timed out: no notify woke it.
  b.Unlock(1, 7);
  const EventIndex notify2 = b.Notify(0, 50);
  const EventIndex timed_out = b.Wait(1, 50, /*timed_out=*/true);
  PorIndex por(b.trace());
  CHECK(por.Ordered(notify, wait));
  CHECK(por.Ordered(before_notify, after_wait));
  CHECK_FALSE(por.Ordered(before_wait, before_notify));
  CHECK_FALSE(por.Ordered(notify2, timed_out));
}

TEST_CASE("POR: NOTIFY wakes one waiter, NOTIFY_ALL all of them", "[por]") {
  TraceBuilder b;
  b.Unlock(1, 7);
  b.Unlock(2, 7);
  const EventIndex one = b.Notify(0, 50);
  const EventIndex w1 = b.Wait(1, 50);
  const EventIndex w2 = b.Wait(2, 50);  // woken spuriously: the one notify went to T1
  CHECK(PorIndex(b.trace()).Ordered(one, w1));
  CHECK_FALSE(PorIndex(b.trace()).Ordered(one, w2));

  TraceBuilder c;
  c.Unlock(1, 7);
  c.Unlock(2, 7);
  const EventIndex all = c.NotifyAll(0, 50);
  const EventIndex v1 = c.Wait(1, 50);
  const EventIndex v2 = c.Wait(2, 50);
  PorIndex por(c.trace());
  CHECK(por.Ordered(all, v1));
  CHECK(por.Ordered(all, v2));
}

TEST_CASE("POR: a notify before the waiter started waiting does not wake it", "[por]") {
  TraceBuilder b;
  const EventIndex early = b.Notify(0, 50);
  b.Unlock(1, 7);
  const EventIndex wait = b.Wait(1, 50);
  CHECK_FALSE(PorIndex(b.trace()).Ordered(early, wait));
}

TEST_CASE("POR: barrier generations", "[por]") {
  TraceBuilder b;
  const EventIndex a0 = b.Write(0, 1);
  b.Arrive(0, 9, 2);
  const EventIndex a1 = b.Write(1, 2);
  b.Arrive(1, 9, 2);
  b.Depart(1, 9, 2);
  b.Depart(0, 9, 2);
  const EventIndex after0 = b.Read(0, 2);
  const EventIndex after1 = b.Read(1, 1);
  // Second generation: T0 arrives, T1 has not yet; T0's first-generation write is ordered
  // before T1's second-generation departure only through the first generation.
  const EventIndex gen2_write = b.Write(0, 3);
  b.Arrive(0, 9, 2);
  const EventIndex t1_before_gen2 = b.Write(1, 4);
  b.Arrive(1, 9, 2);
  b.Depart(0, 9, 2);
  const EventIndex t0_after_gen2 = b.Read(0, 4);
  PorIndex por(b.trace());
  CHECK(por.Ordered(a0, after1));
  CHECK(por.Ordered(a1, after0));
  CHECK(por.Ordered(t1_before_gen2, t0_after_gen2));
  CHECK_FALSE(por.Ordered(gen2_write, after1));
  CHECK(por.Concurrent(gen2_write, t1_before_gen2));
}

TEST_CASE("POR: semaphore k-th wait after the (k - initial)-th post", "[por]") {
  TraceBuilder b;
  // Initial count 0: wait 1 needs post 1, wait 2 needs post 2.
  const EventIndex p1 = b.Post(0, 5);
  const EventIndex p2 = b.Post(2, 5);
  const EventIndex w1 = b.SemWait(1, 5);
  const EventIndex w2 = b.SemWait(3, 5);
  PorIndex por(b.trace());
  CHECK(por.Ordered(p1, w1));
  CHECK(por.Ordered(p2, w2));
  CHECK_FALSE(por.Ordered(p2, w1));
  CHECK_FALSE(por.Ordered(p1, w2));

  // A wait before any post shows an initial count of at least 1: that wait gets no edge, the
  // next wait is ordered after the first post.
  TraceBuilder c;
  const EventIndex free_wait = c.SemWait(1, 5);
  const EventIndex post = c.Post(0, 5);
  const EventIndex second_wait = c.SemWait(2, 5);
  PorIndex por2(c.trace());
  CHECK(por2.Concurrent(free_wait, post));
  CHECK(por2.Ordered(post, second_wait));
}

TEST_CASE("POR: release store -> acquire load that read it", "[por]") {
  TraceBuilder b;
  const EventIndex data = b.Write(0, 100);
  b.AtomicStore(0, 8, MemoryOrder::kRelease);
  const EventIndex load = b.AtomicLoad(1, 8, MemoryOrder::kAcquire);
  const EventIndex use = b.Read(1, 100);
  const EventIndex relaxed_data = b.Write(0, 200);
  b.AtomicStore(0, 16, MemoryOrder::kRelaxed);
  const EventIndex relaxed_load = b.AtomicLoad(1, 16, MemoryOrder::kAcquire);
  const EventIndex data3 = b.Write(0, 300);
  b.AtomicStore(0, 24, MemoryOrder::kRelease);
  b.AtomicLoad(1, 24, MemoryOrder::kRelaxed);
  const EventIndex use3 = b.Read(1, 300);
  PorIndex por(b.trace());
  CHECK(por.Ordered(data, use));
  CHECK(por.Ordered(data, load));
  CHECK_FALSE(por.Ordered(relaxed_data, relaxed_load));
  CHECK_FALSE(por.Ordered(data3, use3));
}

TEST_CASE("POR: the load reads the last write, a later plain store breaks the edge", "[por]") {
  TraceBuilder b;
  const EventIndex data = b.Write(0, 100);
  b.AtomicStore(0, 8, MemoryOrder::kRelease);
  b.AtomicStore(2, 8, MemoryOrder::kRelaxed);
  const EventIndex load = b.AtomicLoad(1, 8, MemoryOrder::kAcquire);
  CHECK_FALSE(PorIndex(b.trace()).Ordered(data, load));

  // An RMW continues the release sequence.
  TraceBuilder c;
  const EventIndex d = c.Write(0, 100);
  c.AtomicStore(0, 8, MemoryOrder::kRelease);
  c.AtomicRmw(2, 8, MemoryOrder::kRelaxed);
  const EventIndex l = c.AtomicLoad(1, 8, MemoryOrder::kAcquire);
  CHECK(PorIndex(c.trace()).Ordered(d, l));
}

TEST_CASE("POR: fences turn relaxed atomics into release/acquire", "[por]") {
  TraceBuilder b;
  const EventIndex data = b.Write(0, 100);
  b.Fence(0, MemoryOrder::kRelease);
  b.AtomicStore(0, 8, MemoryOrder::kRelaxed);
  const EventIndex relaxed = b.AtomicLoad(1, 8, MemoryOrder::kRelaxed);
  const EventIndex fence = b.Fence(1, MemoryOrder::kAcquire);
  const EventIndex use = b.Read(1, 100);
  PorIndex por(b.trace());
  CHECK_FALSE(por.Ordered(data, relaxed));
  CHECK(por.Ordered(data, fence));
  CHECK(por.Ordered(data, use));
}

TEST_CASE("POR: user happens-before annotations", "[por]") {
  TraceBuilder b;
  const EventIndex before = b.Write(0, 100);
  b.HbRelease(0, 42);
  const EventIndex other_key = b.HbAcquire(2, 43);
  const EventIndex acquire = b.HbAcquire(1, 42);
  const EventIndex after = b.Read(1, 100);
  PorIndex por(b.trace());
  CHECK(por.Ordered(before, after));
  CHECK(por.Ordered(before, acquire));
  CHECK_FALSE(por.Ordered(before, other_key));
}

TEST_CASE("POR: transitivity across three threads", "[por]") {
  TraceBuilder b;
  const EventIndex first = b.Write(0, 100);
  b.HbRelease(0, 1);
  b.HbAcquire(1, 1);
  b.HbRelease(1, 2);
  const EventIndex last = b.HbAcquire(2, 2);
  const EventIndex unrelated = b.Write(0, 5);
  PorIndex por(b.trace());
  CHECK(por.Ordered(first, last));
  CHECK(por.Concurrent(unrelated, last));
  CHECK(por.TcInterval(last) == 1);
  CHECK(por.TcInterval(first) == 0);
}

// Notify records are dropped once no later wait can take them (por_clocks.cpp): a wait looks
// back to its thread's previous event, and a thread with no event yet looks back to the start.
TEST_CASE("POR: old notifies stay for a thread that has not started, and for semaphores' order",
          "[por]") {
  TraceBuilder b;
  const EventIndex first = b.Notify(0, 50);  // nobody waits yet
  EventIndex last_wait = 0;
  for (int round = 0; round < 300; ++round) {  // each consumed by T1, far past the pruning point
    b.Unlock(1, 7);
    b.Notify(0, 50);
    last_wait = b.Wait(1, 50);
    b.Lock(1, 7);
  }
  // T2's first event waits: it looks back to the start, past 300 consumed notifies, to `first`.
  const EventIndex late = b.Wait(2, 50);
  // Semaphore posts already taken by earlier waits are dropped; the k-th wait still gets the
  // k-th post.
  EventIndex tenth_post = 0, tenth_wait = 0;
  for (int k = 1; k <= 20; ++k) {
    const EventIndex post = b.Add(0, pecan::EventKind::kSemPost, 90, 0, 0, 0);
    const EventIndex wait = b.Add(1, pecan::EventKind::kSemWait, 90, 0, 0, 0);
    if (k == 10) tenth_post = post, tenth_wait = wait;
  }
  PorIndex por(b.trace());
  CHECK(por.Ordered(first, late));
  CHECK(por.Ordered(last_wait - 1, last_wait));  // the notify just before T1's last wait
  CHECK(por.Ordered(tenth_post, tenth_wait));
}
