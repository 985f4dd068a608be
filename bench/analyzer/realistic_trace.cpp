// Simulates the threads of a server-like program and records the interleaving (see header).
#include "bench/analyzer/realistic_trace.h"

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

namespace pecan::bench {
namespace {

// Address layout of the simulated program.
constexpr uint64_t kConfigTable = 0x600000;  // read-mostly table, written by main before forks
constexpr uint32_t kConfigEntries = 4096;
constexpr uint64_t kCounters = 0x700000;  // one counter per counter lock
constexpr uint32_t kCounterLocks = 16;
constexpr uint64_t kTotal = 0x700800;  // guarded by the global lock
constexpr uint64_t kTable = 0x710000;  // guarded by the table lock
constexpr uint32_t kTableEntries = 1024;
constexpr uint64_t kHot = 0x720000;  // statistics counters updated without a lock
constexpr uint32_t kHotCounters = 4;
constexpr uint64_t kShutdownFlag = 0x720100;
constexpr uint64_t kAtomics = 0x730000;     // atomic counters
constexpr uint64_t kReadyFlags = 0x730100;  // one release/acquire flag per thread
constexpr uint64_t kQueueHead = 0x740000;
constexpr uint64_t kQueueTail = 0x740008;
constexpr uint64_t kQueueSlots = 0x740100;
constexpr uint32_t kQueueCapacity = 64;
constexpr uint64_t kStacks = 0x7f0000000000;  // per-thread stack region
constexpr uint64_t kHeap = 0x50000000;        // per-thread heap blocks, freed and reused
constexpr uint64_t kStats = 0x750000;         // requests, bytes: two fields of one record
constexpr uint64_t kCounterLockBase = 0x800000;
constexpr uint64_t kGlobalLock = 0x800800;
constexpr uint64_t kTableLock = 0x800808;
constexpr uint64_t kQueueLock = 0x800810;
constexpr uint64_t kStatsLock = 0x800818;   // taken by the code that updates the statistics
constexpr uint64_t kReportLock = 0x800820;  // taken by the code that reports them (a bug)
constexpr uint64_t kQueueCondition = 0x900000;
constexpr uint32_t kMaxHelpers = 4;

// Code locations: the same code runs in every thread, so sites repeat across threads.
enum Site : SiteId {
  kSiteLocalRead,
  kSiteLocalWrite,
  kSiteConfigRead,
  kSiteConfigWrite,
  kSiteCounterLock,
  kSiteCounterRead,
  kSiteCounterWrite,
  kSiteCounterUnlock,
  kSiteGlobalLock,
  kSiteTotalRead,
  kSiteTotalWrite,
  kSiteGlobalUnlock,
  kSiteTableLock,
  kSiteTableRead,
  kSiteTableWrite,
  kSiteTableUnlock,
  kSiteHotRead,
  kSiteHotWrite,
  kSiteShutdownRead,
  kSiteShutdownWrite,
  kSiteAtomicAdd,
  kSiteReadyStore,
  kSiteReadyLoad,
  kSiteQueueLock,
  kSiteQueueRead,
  kSiteQueueWrite,
  kSiteQueueNotify,
  kSiteQueueUnlock,
  kSiteQueueWait,
  kSiteAlloc,
  kSiteHeapWrite,
  kSiteHeapRead,
  kSiteFree,
  kSiteFunction,
  kSiteFork,
  kSiteJoin,
  kSiteThreadBegin,
  kSiteThreadEnd,
  kSiteTableWriteUnlocked,
  kSiteStatsLock,
  kSiteStatsWrite,
  kSiteStatsUnlock,
  kSiteReportLock,
  kSiteStatsRead,
  kSiteReportUnlock,
  kSiteCount
};

class Simulation {
 public:
  explicit Simulation(const RealisticTraceOptions& options)
      : options_(options), rng_(options.seed) {
    trace_.meta.producer = "bench_analyzer";
    trace_.meta.program = "/bench/realistic-server";
    trace_.modules.push_back(ModuleInfo{1, "/bench/realistic-server", 0x555555554000, ""});
    for (SiteId s = 0; s < kSiteCount; ++s) trace_.sites.push_back(SiteInfo{1, 0x1000 + 16 * s});
    trace_.reserve(options.events + 4096);
    threads_.reserve(1 + options.workers + kMaxHelpers);  // references stay valid
  }

  Trace Run() {
    ThreadId main = NewThread(std::nullopt);
    threads_[main].started = true;
    ScriptMain(main);
    while (!threads_[main].finished) {
      bool progressed = false;
      // Bursts of one thread at a time, like a scheduler's time slices: a random thread, or the
      // next one that can run.
      size_t first = rng_() % alive_.size();
      for (size_t k = 0; k < alive_.size() && !progressed; ++k) {
        ThreadId t = alive_[(first + k) % alive_.size()];
        progressed = RunBurst(t, 1 + rng_() % 32) > 0;
      }
      if (!progressed && !WakeSomeWaiterByTimeout()) break;  // cannot happen: no lock cycles
    }
    return std::move(trace_);
  }

 private:
  struct SimThread {
    std::vector<Event> script;  // what the thread does next
    size_t next = 0;
    bool started = false;  // its FORK has run (the main thread starts at once)
    bool finished = false;
    bool waiting = false;  // released the queue lock, waits for a notify
    bool notified = false;
    uint32_t children = 0;
    std::vector<ThreadId> helpers_to_join;
    uint64_t heap_version = 0;
  };

  uint64_t Random(uint64_t n) { return rng_() % n; }
  bool Chance(uint32_t percent) { return Random(100) < percent; }
  bool WindingDown() const { return trace_.size_events() >= options_.events; }

  ThreadId NewThread(std::optional<ThreadId> parent) {
    ThreadId id = static_cast<ThreadId>(threads_.size());
    ThreadInfo info;
    info.parent = parent;
    if (parent) info.ordinal = threads_[*parent].children++;
    info.name = "T" + std::to_string(id);
    trace_.threads.push_back(info);
    threads_.emplace_back();
    alive_.push_back(id);
    Add(id, EventKind::kThreadBegin, 0, 0, kSiteThreadBegin);
    return id;
  }

  void Add(ThreadId t, EventKind kind, uint64_t addr, uint32_t size, SiteId site,
           uint8_t flags = 0) {
    threads_[t].script.push_back(Event{t, kind, flags, size, addr, site});
  }
  void Read(ThreadId t, uint64_t addr, SiteId site) { Add(t, EventKind::kRead, addr, 8, site); }
  void Write(ThreadId t, uint64_t addr, SiteId site) { Add(t, EventKind::kWrite, addr, 8, site); }

  void ScriptMain(ThreadId main) {
    Write(main, kShutdownFlag, kSiteShutdownWrite);
    for (uint32_t i = 0; i < kConfigEntries; i += 8)
      Write(main, kConfigTable + 8 * i, kSiteConfigWrite);
    for (uint32_t w = 0; w < options_.workers; ++w) {
      // The child exists once FORK runs; create it now so its id is known.
      ThreadId child = NewThread(main);
      ScriptWorkerStep(child);
      Add(main, EventKind::kFork, child, 0, kSiteFork);
      workers_.push_back(child);
    }
  }

  // Appends the thread's next step (a few to a few dozen events) to its script.
  void Refill(ThreadId t) {
    SimThread& thread = threads_[t];
    thread.script.clear();
    thread.next = 0;
    if (t == 0) {
      if (WindingDown()) {
        for (ThreadId w : workers_) Add(t, EventKind::kJoin, w, 0, kSiteJoin);
        Add(t, EventKind::kThreadEnd, 0, 0, kSiteThreadEnd);
      } else {
        ScriptWorkerStep(t);
      }
      return;
    }
    if (WindingDown() || IsHelper(t)) {
      for (ThreadId h : thread.helpers_to_join) Add(t, EventKind::kJoin, h, 0, kSiteJoin);
      thread.helpers_to_join.clear();
      Add(t, EventKind::kThreadEnd, 0, 0, kSiteThreadEnd);
      return;
    }
    ScriptWorkerStep(t);
  }

  bool IsHelper(ThreadId t) const { return t > options_.workers; }

  void ScriptWorkerStep(ThreadId t) {
    bool wrapped = Chance(30);
    if (wrapped) Add(t, EventKind::kFuncEntry, 0, 0, kSiteFunction);
    uint64_t r = Random(1000);
    if (r < 330) {
      uint64_t stack = kStacks + 0x100000ull * t;
      for (uint64_t k = 4 + Random(9); k > 0; --k) {
        uint64_t addr = stack + 8 * Random(64);
        if (Chance(60))
          Read(t, addr, kSiteLocalRead);
        else
          Write(t, addr, kSiteLocalWrite);
      }
    } else if (r < 350) {
      // Two fields updated together under one lock but read under another: atomic-set
      // violations (a report can see requests and bytes from different updates).
      if (Chance(70)) {
        Add(t, EventKind::kLock, kStatsLock, 0, kSiteStatsLock);
        Write(t, kStats, kSiteStatsWrite);
        Write(t, kStats + 8, kSiteStatsWrite);
        Add(t, EventKind::kUnlock, kStatsLock, 0, kSiteStatsUnlock);
      } else {
        Add(t, EventKind::kLock, kReportLock, 0, kSiteReportLock);
        Read(t, kStats, kSiteStatsRead);
        Read(t, kStats + 8, kSiteStatsRead);
        Add(t, EventKind::kUnlock, kReportLock, 0, kSiteReportUnlock);
      }
    } else if (r < 500) {
      for (uint64_t k = 2 + Random(5); k > 0; --k)
        Read(t, kConfigTable + 8 * Random(kConfigEntries), kSiteConfigRead);
    } else if (r < 620) {
      uint64_t j = Random(kCounterLocks);
      Add(t, EventKind::kLock, kCounterLockBase + 8 * j, 0, kSiteCounterLock);
      Read(t, kCounters + 8 * j, kSiteCounterRead);
      Write(t, kCounters + 8 * j, kSiteCounterWrite);
      if (Chance(30)) {
        Add(t, EventKind::kLock, kGlobalLock, 0, kSiteGlobalLock);
        Read(t, kTotal, kSiteTotalRead);
        Write(t, kTotal, kSiteTotalWrite);
        Add(t, EventKind::kUnlock, kGlobalLock, 0, kSiteGlobalUnlock);
      }
      Add(t, EventKind::kUnlock, kCounterLockBase + 8 * j, 0, kSiteCounterUnlock);
    } else if (r < 700) {
      uint64_t slot = kTable + 8 * Random(kTableEntries);
      if (Chance(2)) {  // a path that forgot the table lock: races and atomicity violations
        Write(t, slot, kSiteTableWriteUnlocked);
        if (wrapped) Add(t, EventKind::kFuncExit, 0, 0, kSiteFunction);
        return;
      }
      Add(t, EventKind::kLock, kTableLock, 0, kSiteTableLock);
      Read(t, slot, kSiteTableRead);
      Write(t, slot, kSiteTableWrite);
      Add(t, EventKind::kUnlock, kTableLock, 0, kSiteTableUnlock);
    } else if (r < 740) {
      uint64_t hot = kHot + 8 * Random(kHotCounters);
      Read(t, hot, kSiteHotRead);
      Write(t, hot, kSiteHotWrite);
    } else if (r < 790) {
      Read(t, kShutdownFlag, kSiteShutdownRead);
    } else if (r < 870) {
      uint64_t pick = Random(4);
      if (pick < 2) {
        Add(t, EventKind::kAtomicRmw, kAtomics + 8 * Random(4), 8, kSiteAtomicAdd,
            static_cast<uint8_t>(MemoryOrder::kSeqCst));
      } else if (pick == 2) {
        Add(t, EventKind::kAtomicStore, kReadyFlags + 8 * t, 8, kSiteReadyStore,
            static_cast<uint8_t>(MemoryOrder::kRelease));
      } else {
        Add(t, EventKind::kAtomicLoad, kReadyFlags + 8 * Random(threads_.size()), 8, kSiteReadyLoad,
            static_cast<uint8_t>(MemoryOrder::kAcquire));
      }
    } else if (r < 930) {
      Add(t, EventKind::kLock, kQueueLock, 0, kSiteQueueLock);
      Read(t, kQueueTail, kSiteQueueRead);
      Write(t, kQueueSlots + 8 * Random(kQueueCapacity), kSiteQueueWrite);
      Write(t, kQueueTail, kSiteQueueWrite);
      Add(t, EventKind::kNotifyAll, kQueueCondition, 0, kSiteQueueNotify);
      Add(t, EventKind::kUnlock, kQueueLock, 0, kSiteQueueUnlock);
    } else if (r < 990) {
      Add(t, EventKind::kLock, kQueueLock, 0, kSiteQueueLock);
      Read(t, kQueueHead, kSiteQueueRead);
      Read(t, kQueueTail, kSiteQueueRead);
      if (Chance(30)) {  // empty queue: a condition wait
        Add(t, EventKind::kUnlock, kQueueLock, 0, kSiteQueueWait);
        Add(t, EventKind::kWait, kQueueCondition, 0, kSiteQueueWait);
        Add(t, EventKind::kLock, kQueueLock, 0, kSiteQueueWait);
        Read(t, kQueueTail, kSiteQueueRead);
      }
      Read(t, kQueueSlots + 8 * Random(kQueueCapacity), kSiteQueueRead);
      Write(t, kQueueHead, kSiteQueueWrite);
      Add(t, EventKind::kUnlock, kQueueLock, 0, kSiteQueueUnlock);
    } else if (r < 999) {
      // A heap block: allocated, used, freed; the address comes back (a new location).
      uint64_t block = kHeap + 0x10000ull * t + 64 * (threads_[t].heap_version++ % 4);
      Add(t, EventKind::kAlloc, block, 64, kSiteAlloc);
      for (int k = 0; k < 3; ++k) Write(t, block + 8 * k, kSiteHeapWrite);
      Read(t, block, kSiteHeapRead);
      Add(t, EventKind::kFree, block, 64, kSiteFree);
    } else if (helpers_ < kMaxHelpers && t <= options_.workers && t != 0) {
      // A short-lived helper thread doing shared work; joined by its parent later.
      ++helpers_;
      ThreadId helper = NewThread(t);
      for (int k = 0; k < 8; ++k) ScriptWorkerStep(helper);
      Add(t, EventKind::kFork, helper, 0, kSiteFork);
      threads_[t].helpers_to_join.push_back(helper);
    } else {
      Read(t, kStacks + 0x100000ull * t, kSiteLocalRead);  // no helper allowed: local work
    }
    if (wrapped) Add(t, EventKind::kFuncExit, 0, 0, kSiteFunction);
  }

  bool LockFree(uint64_t lock) const {
    auto it = std::find_if(owners_.begin(), owners_.end(),
                           [&](const auto& owner) { return owner.first == lock; });
    return it == owners_.end();
  }

  bool Blocked(ThreadId t, const Event& e) const {
    if (!threads_[t].started) return true;
    switch (e.kind) {
      case EventKind::kLock:
        return !LockFree(e.addr);
      case EventKind::kWait:
        return !threads_[t].notified;
      case EventKind::kJoin:
        return !threads_[e.addr].finished;
      default:
        return false;
    }
  }

  // Emits up to `budget` events of thread t; returns how many.
  size_t RunBurst(ThreadId t, size_t budget) {
    size_t emitted = 0;
    while (emitted < budget) {
      SimThread& thread = threads_[t];
      if (thread.finished) break;
      if (thread.next == thread.script.size()) Refill(t);
      Event e = threads_[t].script[threads_[t].next];
      if (Blocked(t, e)) break;
      Emit(t, e);
      ++threads_[t].next;
      ++emitted;
    }
    return emitted;
  }

  void Emit(ThreadId t, Event e) {
    SimThread& thread = threads_[t];
    switch (e.kind) {
      case EventKind::kLock:
        owners_.emplace_back(e.addr, t);
        break;
      case EventKind::kUnlock: {
        auto it = std::find_if(owners_.begin(), owners_.end(),
                               [&](const auto& owner) { return owner.first == e.addr; });
        if (it != owners_.end()) owners_.erase(it);
        // The release before a condition wait: from now on a notify wakes this thread.
        size_t after = thread.next + 1;
        if (after < thread.script.size() && thread.script[after].kind == EventKind::kWait) {
          thread.waiting = true;
          thread.notified = false;
        }
        break;
      }
      case EventKind::kFork:
        threads_[e.addr].started = true;
        break;
      case EventKind::kNotifyAll:
        for (SimThread& other : threads_)
          if (other.waiting) other.notified = true;
        break;
      case EventKind::kWait:
        if (!thread.notified) e.flags = kWaitTimedOutFlag;
        thread.waiting = false;
        thread.notified = false;
        break;
      case EventKind::kThreadEnd:
        thread.finished = true;
        alive_.erase(std::find(alive_.begin(), alive_.end(), t));
        break;
      default:
        break;
    }
    trace_.push_back(e);
  }

  // When every thread is blocked, one waiter's wait times out (as a timed wait would).
  bool WakeSomeWaiterByTimeout() {
    for (ThreadId t : alive_) {
      SimThread& thread = threads_[t];
      if (thread.waiting && thread.next < thread.script.size() &&
          thread.script[thread.next].kind == EventKind::kWait) {
        thread.script[thread.next].flags = kWaitTimedOutFlag;
        thread.notified = true;  // let it pass; Emit keeps the timed-out flag
        return true;
      }
    }
    return false;
  }

  RealisticTraceOptions options_;
  std::mt19937_64 rng_;
  Trace trace_;
  std::vector<SimThread> threads_;
  std::vector<ThreadId> alive_;
  std::vector<ThreadId> workers_;
  std::vector<std::pair<uint64_t, ThreadId>> owners_;  // held locks: few at a time
  uint32_t helpers_ = 0;
};

}  // namespace

Trace GenerateRealisticTrace(const RealisticTraceOptions& options) {
  return Simulation(options).Run();
}

}  // namespace pecan::bench
