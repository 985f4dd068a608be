// The writer thread's merge loop. Invariant it relies on: a thread that took a number (a global
// stamp or a stripe's next number) publishes it without waiting (it reserved ring space first),
// and everything a ring holds before a stamped event can be written once every earlier number
// of that event's sequence has been written (merge_turns.h).
#include "recorder/trace_collector.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <optional>

#include "recorder/global_stamp.h"
#include "recorder/object_sequences.h"
#include "recorder/process_tasks.h"
#include "recorder/real_functions.h"
#include "recorder/repeat_filter.h"
#include "recorder/runtime.h"
#include "recorder/runtime_messages.h"
#include "recorder/thread_state.h"
#include "trace_format/error.h"

namespace pecan::rt {
namespace {

constexpr uint64_t kHeadPublishSlots = 4096;         // how often a drain hands ring space back
constexpr uint64_t kPrefetchSlots = 16;              // 4 cache lines ahead
constexpr uint64_t kBusyPassSlots = 8192;            // a pass that drained less is a trickle
constexpr long kTricklePauseNs = 200'000;            // what the writer waits after a trickle
constexpr int64_t kFlushIntervalNs = 1'000'000'000;  // bounds what kill -9 loses to ~1 s
// How soon a process whose main thread called pthread_exit ends after its last thread did.
constexpr int64_t kThreadCountIntervalNs = 50'000'000;
constexpr int64_t kGiveUpStampNs = 250'000'000;  // final drain: a stamp that never comes

int64_t MonotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void SleepNs(int64_t ns) {
  timespec pause{ns / 1'000'000'000, ns % 1'000'000'000};
  nanosleep(&pause, nullptr);
}

TraceWriterOptions WriterOptions(const RuntimeConfig& config) {
  TraceWriterOptions options;
  options.chunk_events = config.chunk_events;
  options.zstd_level = config.zstd_level;
  return options;
}

}  // namespace

TraceCollector::TraceCollector(const RuntimeConfig& config, const TraceMeta& meta)
    : config_(config),
      writer_(config.trace_path, meta, WriterOptions(config)),
      sites_(
          [this](const LoadedModule& module) {
            writer_.AddModule(
                ModuleInfo{module.id, module.path, module.load_address, module.build_id});
          },
          [this](SiteId id, const SiteInfo& info) { writer_.AddSite(id, info); }),
      sequence_numbered_(kObjectSequences, 0),
      deadlock_watch_(config.mode == RuntimeMode::kRecord ? config.deadlock_wait_ms : 0) {
  sites_.ScanModules();
  last_flush_ns_ = MonotonicNs();
}

TraceCollector::~TraceCollector() = default;

bool TraceCollector::StartThread() {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int error = REAL(pthread_create)(&thread_, &attr, &TraceCollector::ThreadMain, this);
  pthread_attr_destroy(&attr);
  thread_started_ = error == 0;
  return thread_started_;
}

bool TraceCollector::OnWriterThread() const {
  return thread_started_ && pthread_equal(thread_, pthread_self());
}

void* TraceCollector::ThreadMain(void* self) {
  pthread_setname_np(pthread_self(), "pecan-writer");  // in top, gdb and profiles
  // Asynchronous signals are for the program's threads; a fault in here still kills us.
  sigset_t async_signals;
  sigfillset(&async_signals);
  for (int sync_signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS}) {
    sigdelset(&async_signals, sync_signal);
  }
  pthread_sigmask(SIG_BLOCK, &async_signals, nullptr);
  static_cast<TraceCollector*>(self)->Run();
  return nullptr;
}

void TraceCollector::Run() {
  uint32_t idle_passes = 0;
  while (state_.load(std::memory_order_acquire) == kRunning) {
    const uint64_t drained = write_failed_ ? 0 : Pass(std::numeric_limits<uint64_t>::max());
    if (drained >= kBusyPassSlots) {
      idle_passes = 0;
    } else if (drained > 0) {
      // A trickle: let it gather instead of coming back at once. Each visit reads the tails the
      // producers store after every event (their cache lines move to this core and back) and,
      // with more runnable threads than cores, takes a core from the program. A producer whose
      // ring fills up wakes us at once.
      idle_passes = 0;
      WriterIdleWait(kTricklePauseNs);
    } else {
      // Waiting for the next number in some sequence or for new events: yield a few times, then
      // sleep up to 1 ms at a time.
      if (++idle_passes < 8) {
        sched_yield();
      } else {
        WriterIdleWait(1'000'000);
      }
    }
    if (writer_.events_written() != events_at_flush_ &&
        MonotonicNs() - last_flush_ns_ > kFlushIntervalNs) {
      FlushFile();
    }
    if (deadlock_watch_.enabled() && !write_failed_ &&
        MonotonicNs() - last_deadlock_look_ns_ > DeadlockWatch::kLookIntervalNs) {
      last_deadlock_look_ns_ = MonotonicNs();
      std::vector<const ThreadRing*> rings;
      for (const RingCursor& cursor : cursors_) rings.push_back(cursor.ring);
      std::vector<BlockedThreadState> blocked = deadlock_watch_.Look(rings, last_deadlock_look_ns_);
      if (!blocked.empty()) EndDeadlockedRun(std::move(blocked));
    }
    if (InitialThreadExited() && MonotonicNs() - last_thread_count_ns_ > kThreadCountIntervalNs) {
      last_thread_count_ns_ = MonotonicNs();
      // Every program thread is gone: end the process as the last thread's exit would have.
      if (LiveThreadCount() == 1) exit(0);
    }
    if (pause_requested_.load(std::memory_order_acquire)) {
      FlushFile();
      paused_.store(true, std::memory_order_release);
      while (pause_requested_.load(std::memory_order_acquire)) SleepNs(20'000);
      paused_.store(false, std::memory_order_release);
    }
  }
  FinalDrain();
  state_.store(kDone, std::memory_order_release);
}

void TraceCollector::EndDeadlockedRun(std::vector<BlockedThreadState> blocked) {
  if (finish_claimed_.exchange(true, std::memory_order_acq_rel)) return;
  exit_ = ProgramExitInfo{true, true, kDeadlockExitStatus, 0};
  deadlocked_ = std::move(blocked);
  recording_closed.store(true, std::memory_order_release);
  const std::string status = std::to_string(kDeadlockExitStatus);
  RuntimeMessage(
      "deadlock: every thread is blocked in synchronization; the trace says who waits for what "
      "(pecan dump); ending the program with status ",
      status.c_str());
  FinalDrain();
  state_.store(kDone, std::memory_order_release);
  // Not exit(): the program's atexit handlers and destructors could wait for the locks its
  // blocked threads hold. Its unflushed stdio output is lost, as when it is killed.
  syscall(SYS_exit_group, kDeadlockExitStatus);
}

std::vector<BlockedThreadInfo> TraceCollector::ResolveBlockedThreads() {
  std::vector<BlockedThreadInfo> resolved;
  for (const BlockedThreadState& blocked : deadlocked_) {
    const int64_t thread = ThreadOfSerial(blocked.serial);
    if (thread < 0) continue;  // never began in the trace (cannot happen to a blocked thread)
    BlockedThreadInfo info;
    info.thread = ThreadId(thread);
    info.on = blocked.on;
    info.object = blocked.object;
    info.site = sites_.Intern(blocked.pc & kLow48);
    if (blocked.on == BlockedOn::kJoin) {
      const int64_t joined =
          blocked.object <= UINT32_MAX ? ThreadOfSerial(uint32_t(blocked.object)) : -1;
      info.object = joined < 0 ? kUnknownJoinedThread : uint64_t(joined);
    }
    if (IsLockWait(blocked.on)) {
      for (const BlockedThreadState& other : deadlocked_) {
        const int64_t holder = ThreadOfSerial(other.serial);
        if (holder < 0) continue;
        for (const BlockedThreadState::Held& held : other.held)
          if (held.lock == blocked.object)
            info.holders.push_back(
                LockHolderInfo{ThreadId(holder), sites_.Intern(held.pc), held.shared});
      }
    }
    resolved.push_back(std::move(info));
  }
  std::sort(
      resolved.begin(), resolved.end(),
      [](const BlockedThreadInfo& a, const BlockedThreadInfo& b) { return a.thread < b.thread; });
  return resolved;
}

void TraceCollector::FlushFile() {
  if (write_failed_) return;
  try {
    writer_.Flush();
  } catch (const std::exception& error) {
    RuntimeMessage("cannot write the trace: ", error.what());
    write_failed_ = true;
    recording_closed.store(true, std::memory_order_relaxed);
  }
  events_at_flush_ = writer_.events_written();
  last_flush_ns_ = MonotonicNs();
}

void TraceCollector::PauseForFork() {
  if (!thread_started_ || OnWriterThread()) return;
  pause_requested_.store(true, std::memory_order_release);
  while (!paused_.load(std::memory_order_acquire) &&
         state_.load(std::memory_order_acquire) == kRunning) {
    SleepNs(20'000);
  }
}

void TraceCollector::ResumeAfterFork() {
  pause_requested_.store(false, std::memory_order_release);
}

bool TraceCollector::Finish(const ProgramExitInfo& exit, int64_t max_wait_ms) {
  if (!finish_claimed_.exchange(true, std::memory_order_acq_rel)) {
    exit_ = exit;
    // From now on a full ring drops events instead of waiting for a writer that stops soon.
    recording_closed.store(true, std::memory_order_release);
    // Without a writer thread, or on it (it ended the process itself), finish right here.
    if (!thread_started_ || OnWriterThread()) {
      RuntimeScope scope;
      FinalDrain();
      state_.store(kDone, std::memory_order_release);
      return true;
    }
    state_.store(kFinishRequested, std::memory_order_release);
    WakeWriter();
  }
  if (OnWriterThread()) return finished();
  const int64_t deadline = MonotonicNs() + max_wait_ms * 1'000'000;
  while (!finished()) {
    if (MonotonicNs() > deadline) return false;
    SleepNs(200'000);
  }
  return true;
}

void TraceCollector::FinalDrain() {
  if (!write_failed_) {
    // Everything stamped before the end was requested belongs in the trace, and every event
    // an object's sequence numbered (they stop numbering once recording_closed is up, as it
    // is by now). A number whose thread died between taking it and publishing it (a crash) is
    // given up after a while.
    const uint64_t limit = StampsTaken();
    ReadSequenceCounts();
    int64_t last_progress = MonotonicNs();
    while (turns_.next_stamp() < limit || turns_.SequencesBehind(sequence_numbered_.data())) {
      if (Pass(limit)) {
        last_progress = MonotonicNs();
        continue;
      }
      if (MonotonicNs() - last_progress > kGiveUpStampNs) {
        const uint64_t given_up =
            turns_.GiveUp(PresentOrderKeys(), sequence_numbered_.data(), limit);
        if (given_up == 0) break;  // what is left waits for numbers taken after the end
        given_up_stamps_ += given_up;
        last_progress = MonotonicNs();
        continue;
      }
      SleepNs(50'000);
      ReadSequenceCounts();  // a thread that had not seen the end yet may have numbered one more
    }
    Pass(limit);  // the plain events published up to now
  }
  WriteFooter();
}

std::vector<OrderKey> TraceCollector::PresentOrderKeys() const {
  std::vector<OrderKey> present;
  for (const RingCursor& cursor : cursors_) {
    const ThreadRing& ring = *cursor.ring;
    const uint64_t tail = ring.tail.load(std::memory_order_acquire);
    for (uint64_t head = cursor.head; head < tail;) {
      const uint64_t word = ring.slots[head & ring.mask].word;
      if (IsStampedKind(SlotKind(word))) present.push_back(OrderKeyOf(word));
      head += SlotsOfEvent(word);
    }
  }
  return present;
}

void TraceCollector::ReadSequenceCounts() {
  for (uint32_t s = 0; s < kObjectSequences; ++s) sequence_numbered_[s] = SequenceNumbered(s);
}

void TraceCollector::WriteFooter() {
  if (write_failed_) return;
  try {
    writer_.Finish(exit_, dropped_events.load(std::memory_order_relaxed) + given_up_stamps_,
                   ResolveBlockedThreads());
  } catch (const std::exception& error) {
    RuntimeMessage("cannot finish the trace: ", error.what());
    write_failed_ = true;
  }
}

uint64_t TraceCollector::Pass(uint64_t stamp_limit) {
  uint64_t progress = 0;
  try {
    AdoptNewRings();
    for (size_t i = 0; i < cursors_.size(); ++i) {
      if (!cursors_[i].blocked) progress += DrainRing(i, stamp_limit);
    }
    // Rings waiting at a stamped event: drain each again when its turn comes.
    size_t ready;
    while (turns_.TakeReady(stamp_limit, ready)) {
      cursors_[ready].blocked = false;
      progress += DrainRing(ready, stamp_limit) + 1;  // (a ring handed back is progress)
    }
    ReleaseFinishedRings();
  } catch (const std::exception& error) {
    RuntimeMessage("cannot write the trace: ", error.what());
    write_failed_ = true;
    recording_closed.store(true, std::memory_order_relaxed);
  }
  return progress;
}

void TraceCollector::AdoptNewRings() {
  for (ThreadRing* ring = TakePublishedRings(); ring != nullptr;) {
    ThreadRing* next = ring->next_pending;
    RingCursor cursor;
    cursor.ring = ring;
    cursor.head = ring->head.load(std::memory_order_relaxed);
    cursor.tail = cursor.head;
    cursors_.push_back(cursor);
    ring = next;
  }
}

uint64_t TraceCollector::DrainRing(size_t cursor_index, uint64_t stamp_limit) {
  RingCursor& cursor = cursors_[cursor_index];
  ThreadRing& ring = *cursor.ring;
  const Slot* const slots = ring.slots;
  const uint64_t mask = ring.mask;
  // The producer stores its tail after every event: read that line only when what was seen
  // of the ring is used up.
  if (cursor.head == cursor.tail) cursor.tail = ring.tail.load(std::memory_order_acquire);
  const uint64_t tail = cursor.tail;
  const uint64_t start = cursor.head;
  uint64_t head = start;
  uint64_t published = start;
  while (head < tail) {
    const uint64_t word = slots[head & mask].word;
    const EventKind kind = SlotKind(word);
    if (IsStampedKind(kind)) {
      const OrderKey key = OrderKeyOf(word);
      const MergeTurns::Turn turn = turns_.Check(key, stamp_limit);
      if (turn == MergeTurns::Turn::kPast) {
        // A number given up at a crash that was published after all: too late to place it.
        head += 2;
        dropped_events.fetch_add(1, std::memory_order_relaxed);
      } else if (turn == MergeTurns::Turn::kLater) {
        cursor.blocked = true;
        cursor.blocked_key = key;
        turns_.Wait(key, cursor_index);
        break;
      } else if (cursor.thread < 0 || ChangesThreadTable(kind)) {
        EmitStampedHead(cursor, head);
        turns_.Written(key);
        head += 2;
      } else {
        head = AppendInTurnRun(cursor, head, std::min(tail, published + kHeadPublishSlots),
                               stamp_limit);
      }
    } else if (cursor.thread < 0) {
      // Before its THREAD_BEGIN a ring's events belong to no trace thread.
      head += SlotsOfEvent(word);
    } else {
      head =
          AppendInTurnRun(cursor, head, std::min(tail, published + kHeadPublishSlots), stamp_limit);
    }
    // Hand space back to the producer as we go, so it keeps running while we encode.
    if (head - published >= kHeadPublishSlots) {
      PublishRingHead(ring, head, /*drained_to_tail=*/false);
      published = head;
    }
  }
  cursor.head = head;
  if (head != published) PublishRingHead(ring, head, /*drained_to_tail=*/head == tail);
  return head - start;
}

bool TraceCollector::ChangesThreadTable(EventKind kind) {
  return kind == EventKind::kThreadBegin || kind == EventKind::kFork || kind == EventKind::kJoin;
}

uint64_t TraceCollector::AppendInTurnRun(RingCursor& cursor, uint64_t head, uint64_t stop,
                                         uint64_t stamp_limit) {
  const Slot* const slots = cursor.ring->slots;
  const uint64_t mask = cursor.ring->mask;
  // Plain events go straight from the slots into the writer's chunk columns, and so do stamped
  // events whose turn has come, up to `stop` or an event that needs more than that.
  writer_.AppendRun(
      ThreadId(cursor.thread), [&]() __attribute__((always_inline))->std::optional<RunEvent> {
        if (head >= stop) return std::nullopt;
        const Slot& slot = slots[head & mask];
        // The producer wrote these lines on another core: ask for them a few lines ahead.
        __builtin_prefetch(&slots[(head + kPrefetchSlots) & mask]);
        const uint64_t word = slot.word;
        const EventKind kind = SlotKind(word);
        if (!IsStampedKind(kind)) {
          RunEvent e{kind,
                     SlotFlags(word),
                     uint32_t(SlotInlineSize(word)),
                     SlotLow48(word),
                     sites_.Intern(slot.pc & kLow48),
                     uint16_t(slot.pc >> kRepeatsShift)};
          if (e.size == 0 && IsPlainAccess(kind)) [[unlikely]] {
            // A wide access: its size is in the next slot, published with it.
            e.size = uint32_t(std::min<uint64_t>(slots[(head + 1) & mask].word, UINT32_MAX));
            ++head;
          }
          ++head;
          return e;
        }
        const OrderKey key = OrderKeyOf(word);
        if (ChangesThreadTable(kind) || turns_.Check(key, stamp_limit) != MergeTurns::Turn::kNow)
          return std::nullopt;
        const Slot& second = slots[(head + 1) & mask];
        turns_.Written(key);
        head += 2;
        return RunEvent{kind,
                        SlotFlags(word),
                        uint32_t(std::min<uint64_t>(second.pc, UINT32_MAX)),
                        second.word,
                        sites_.Intern(slot.pc & kLow48),
                        uint16_t(slot.pc >> kRepeatsShift)};
      });
  return head;
}

void TraceCollector::EmitStampedHead(RingCursor& cursor, uint64_t head) {
  ThreadRing& ring = *cursor.ring;
  const Slot first = ring.slots[head & ring.mask];
  const Slot second = ring.slots[(head + 1) & ring.mask];

  const EventKind kind = SlotKind(first.word);
  Event event;
  event.kind = kind;
  event.flags = SlotFlags(first.word);
  event.addr = second.word;
  event.size = uint32_t(std::min<uint64_t>(second.pc, UINT32_MAX));

  if (kind == EventKind::kThreadBegin && cursor.thread < 0) {
    cursor.thread = ThreadOfSerial(ring.serial);
    if (cursor.thread < 0) {
      // The first recorded thread, or one whose creator was not recorded: no creation path.
      ThreadId id = ThreadId(children_of_thread_.size());
      children_of_thread_.push_back(0);
      thread_of_serial_[ring.serial] = id;
      writer_.AddThread(id, ThreadInfo{std::nullopt, 0, "T" + std::to_string(id)});
      cursor.thread = id;
    }
  }
  if (cursor.thread < 0) {
    dropped_events.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  event.thread = ThreadId(cursor.thread);
  if (kind == EventKind::kFork) {
    event.addr = AssignChild(event.thread, uint32_t(second.word));
  } else if (kind == EventKind::kJoin) {
    int64_t child = ThreadOfSerial(uint32_t(second.word));
    if (child < 0) return;  // joined a thread the recorder never saw start
    event.addr = uint64_t(child);
  }
  event.site = sites_.Intern(first.pc & kLow48);
  event.repeats_before = uint16_t(first.pc >> kRepeatsShift);
  writer_.Append(event);
}

ThreadId TraceCollector::AssignChild(ThreadId parent, uint32_t child_serial) {
  ThreadId id = ThreadId(children_of_thread_.size());
  children_of_thread_.push_back(0);
  uint32_t ordinal = children_of_thread_[parent]++;
  thread_of_serial_[child_serial] = id;
  writer_.AddThread(id, ThreadInfo{parent, ordinal, "T" + std::to_string(id)});
  return id;
}

int64_t TraceCollector::ThreadOfSerial(uint32_t serial) const {
  auto found = thread_of_serial_.find(serial);
  return found == thread_of_serial_.end() ? -1 : int64_t(found->second);
}

void TraceCollector::ReleaseFinishedRings() {
  size_t kept = 0;
  bool removed = false;
  for (size_t i = 0; i < cursors_.size(); ++i) {
    RingCursor& cursor = cursors_[i];
    bool done = !cursor.blocked && cursor.ring->finished.load(std::memory_order_acquire) &&
                cursor.head == cursor.ring->tail.load(std::memory_order_acquire);
    if (done) {
      DestroyRing(cursor.ring);
      removed = true;
      continue;
    }
    cursors_[kept++] = cursor;
  }
  if (!removed) return;
  cursors_.resize(kept);
  // Cursor indices moved: register the waiting rings again.
  turns_.ClearWaits();
  for (size_t i = 0; i < cursors_.size(); ++i) {
    if (cursors_[i].blocked) turns_.Wait(cursors_[i].blocked_key, i);
  }
}

}  // namespace pecan::rt
