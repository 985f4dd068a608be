// Random feasible traces by simulation: threads pick random actions that are possible in the
// current state (free locks, finished children, ...), so the recorded order is a real execution.
#include "tests/support/random_trace_generator.h"

#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/trace_builder.h"

namespace pecan::test {
namespace {

constexpr int kMaxAttempts = 10000;
constexpr int kMaxSteps = 1000;

class Simulation {
 public:
  Simulation(const RandomTraceOptions& options, std::mt19937_64& rng)
      : options_(options), rng_(rng) {
    variables_ = 2 + Below(options.max_variables > 2 ? options.max_variables - 1 : 1);
    locks_ = 1 + Below(options.max_locks > 0 ? options.max_locks : 1);
    conditions_ = options.condition_waits ? 1 : 0;
    target_threads_ = options.min_threads + Below(options.max_threads - options.min_threads + 1);
    target_events_ = options.min_events + Below(options.max_events - options.min_events + 1);
    writer_.assign(locks_, std::nullopt);
    readers_.assign(locks_, 0);
    condition_user_.assign(conditions_, std::nullopt);
    StartThread(std::nullopt);
  }

  // The finished trace, or nothing when the simulation got stuck.
  std::optional<Trace> Run() {
    for (int step = 0; step < kMaxSteps; ++step) {
      // Stop starting new work once what is emitted plus what closing needs reaches the target.
      if (builder_.size() + ClosingCost() >= target_events_)
        for (SimThread& thread : threads_) thread.budget = 0;
      std::vector<Action> actions;
      bool all_finished = true;
      for (ThreadId t = 0; t < threads_.size(); ++t) {
        if (threads_[t].phase != Phase::kFinished) all_finished = false;
        CollectActions(t, actions);
      }
      if (all_finished) return builder_.Build();
      if (actions.empty()) return std::nullopt;
      Perform(Pick(actions));
    }
    return std::nullopt;
  }

  size_t thread_count() const { return threads_.size(); }

 private:
  enum class Phase { kStarting, kRunning, kWaiting, kWoken, kReacquire, kFinished };
  enum class Act {
    kBegin,
    kRead,
    kWrite,
    kAtomicStore,
    kAtomicLoad,
    kLock,
    kReadLock,
    kUnlock,
    kFork,
    kJoin,
    kWait,
    kNotify,
    kNotifyAll,
    kTimeout,
    kWake,
    kReacquire,
    kEnd
  };
  struct Action {
    ThreadId thread;
    Act act;
    uint32_t arg;
    uint32_t weight;
  };
  struct Hold {
    uint32_t lock;
    bool read_mode;
  };
  struct SimThread {
    Phase phase = Phase::kStarting;
    std::vector<Hold> held;
    int budget = 0;
    uint32_t condition = 0;  // the cv waited on (kWaiting .. kReacquire)
    std::vector<ThreadId> unjoined_children;
    bool closing_lock_taken = false;  // the one lock a closing thread may take to notify
  };

  uint32_t Below(uint32_t n) { return n == 0 ? 0 : static_cast<uint32_t>(rng_() % n); }

  std::string VariableName(uint32_t v) const { return std::string(1, static_cast<char>('x' + v)); }
  std::string LockName(uint32_t l) const { return "m" + std::to_string(l + 1); }
  std::string ConditionName(uint32_t c) const { return "c" + std::to_string(c + 1); }
  uint32_t MutexOf(uint32_t condition) const { return condition % locks_; }

  ThreadId StartThread(std::optional<ThreadId> parent) {
    ThreadId id = static_cast<ThreadId>(threads_.size());
    SimThread thread;
    thread.phase = options_.thread_begin_end ? Phase::kStarting : Phase::kRunning;
    thread.budget = parent ? 2 + static_cast<int>(Below(4)) : 3 + static_cast<int>(Below(6));
    threads_.push_back(thread);
    return id;
  }

  bool HeldBySelf(const SimThread& thread, uint32_t lock) const {
    for (const Hold& hold : thread.held)
      if (hold.lock == lock) return true;
    return false;
  }
  bool LockFree(uint32_t lock) const { return !writer_[lock] && readers_[lock] == 0; }

  // Events still needed to finish every thread: releases, joins, the wait's WAIT + LOCK, ends.
  size_t ClosingCost() const {
    size_t cost = 0;
    for (const SimThread& thread : threads_) {
      if (thread.phase == Phase::kFinished) continue;
      cost += thread.held.size() + thread.unjoined_children.size();
      if (thread.phase == Phase::kStarting) cost += 1;
      if (thread.phase == Phase::kWaiting || thread.phase == Phase::kWoken) cost += 3;
      if (thread.phase == Phase::kReacquire) cost += 2;
      if (options_.thread_begin_end) cost += 1;
    }
    return cost;
  }

  bool AnotherThreadCanNotify(ThreadId self) const {
    for (ThreadId u = 0; u < threads_.size(); ++u) {
      if (u == self) continue;
      Phase phase = threads_[u].phase;
      if (phase == Phase::kStarting || (phase == Phase::kRunning && threads_[u].budget > 0))
        return true;
    }
    return false;
  }

  bool SomeoneWaitsUnder(uint32_t lock) const {
    for (uint32_t c = 0; c < conditions_; ++c)
      if (MutexOf(c) == lock && condition_user_[c] &&
          threads_[*condition_user_[c]].phase == Phase::kWaiting)
        return true;
    return false;
  }

  bool ChildFinished(ThreadId child) const { return threads_[child].phase == Phase::kFinished; }

  void CollectActions(ThreadId t, std::vector<Action>& out) {
    SimThread& thread = threads_[t];
    auto add = [&](Act act, uint32_t arg, uint32_t weight) {
      out.push_back({t, act, arg, weight});
    };
    switch (thread.phase) {
      case Phase::kFinished:
        return;
      case Phase::kStarting:
        add(Act::kBegin, 0, 4);
        return;
      case Phase::kWaiting:
        add(Act::kTimeout, 0, 1);
        return;
      case Phase::kWoken:
        add(Act::kWake, 0, 4);
        return;
      case Phase::kReacquire:
        if (LockFree(MutexOf(thread.condition))) add(Act::kReacquire, 0, 4);
        return;
      case Phase::kRunning:
        break;
    }
    if (thread.budget <= 0) {
      // Closing: release every lock, join the children, end — and, once, wake a waiter on the
      // way out (lock its mutex, notify), as a producer signals before it finishes.
      if (!thread.held.empty()) {
        add(Act::kUnlock, 0, 1);
        if (thread.closing_lock_taken) CollectNotifies(t, out);
        return;
      }
      if (!thread.closing_lock_taken)
        for (uint32_t l = 0; l < locks_; ++l)
          if (LockFree(l) && SomeoneWaitsUnder(l)) add(Act::kLock, l, 8);
      bool waiting_for_child = false;
      for (ThreadId child : thread.unjoined_children) {
        if (ChildFinished(child))
          add(Act::kJoin, child, 1);
        else
          waiting_for_child = true;
      }
      if (thread.unjoined_children.empty() && !waiting_for_child) add(Act::kEnd, 0, 1);
      return;
    }
    for (uint32_t v = 0; v < variables_; ++v) {
      add(Act::kRead, v, 3);
      add(Act::kWrite, v, 3);
    }
    if (options_.atomics) {
      add(Act::kAtomicStore, 0, 2);
      add(Act::kAtomicLoad, 0, 2);
    }
    if (thread.held.size() < options_.max_lock_depth) {
      for (uint32_t l = 0; l < locks_; ++l) {
        if (HeldBySelf(thread, l)) continue;
        // Favour the mutex of a waited-on cv so that waits get notified, not only time out.
        if (LockFree(l)) add(Act::kLock, l, SomeoneWaitsUnder(l) ? 40 : 4);
        if (options_.read_locks && !writer_[l]) add(Act::kReadLock, l, 2);
      }
    }
    if (!thread.held.empty()) add(Act::kUnlock, 0, 4);
    if (threads_.size() < target_threads_) add(Act::kFork, 0, t == 0 ? 8 : 1);
    for (ThreadId child : thread.unjoined_children)
      if (ChildFinished(child)) add(Act::kJoin, child, 2);
    for (uint32_t c = 0; c < conditions_; ++c) {
      if (!HoldsForWriting(thread, MutexOf(c))) continue;
      const Hold& innermost = thread.held.back();
      // Wait only while some other thread could still notify; otherwise it would always time out.
      if (!condition_user_[c] && innermost.lock == MutexOf(c) && !innermost.read_mode &&
          AnotherThreadCanNotify(t))
        add(Act::kWait, c, 6);
    }
    CollectNotifies(t, out);
  }

  // NOTIFY / NOTIFY_ALL on every cv whose mutex t holds, likelier when someone waits on it.
  void CollectNotifies(ThreadId t, std::vector<Action>& out) const {
    for (uint32_t c = 0; c < conditions_; ++c) {
      if (!HoldsForWriting(threads_[t], MutexOf(c))) continue;
      // Only one notify may fall into a waiter's UNLOCK..WAIT window (the pairing rule).
      bool woken_pending =
          condition_user_[c] && threads_[*condition_user_[c]].phase == Phase::kWoken;
      if (woken_pending) continue;
      bool waiter = condition_user_[c].has_value();
      out.push_back({t, Act::kNotify, c, waiter ? 30u : 1u});
      out.push_back({t, Act::kNotifyAll, c, waiter ? 15u : 1u});
    }
  }

  bool HoldsForWriting(const SimThread& thread, uint32_t lock) const {
    for (const Hold& hold : thread.held)
      if (hold.lock == lock && !hold.read_mode) return true;
    return false;
  }

  const Action& Pick(const std::vector<Action>& actions) {
    uint64_t total = 0;
    for (const Action& action : actions) total += action.weight;
    uint64_t r = rng_() % total;
    for (const Action& action : actions) {
      if (r < action.weight) return action;
      r -= action.weight;
    }
    return actions.back();
  }

  void Acquire(ThreadId t, uint32_t lock, bool read_mode) {
    if (read_mode) {
      ++readers_[lock];
      builder_.ReadLock(t, LockName(lock));
    } else {
      writer_[lock] = t;
      builder_.Lock(t, LockName(lock));
    }
    threads_[t].held.push_back(Hold{lock, read_mode});
  }

  void ReleaseInnermost(ThreadId t) {
    Hold hold = threads_[t].held.back();
    threads_[t].held.pop_back();
    if (hold.read_mode) {
      --readers_[hold.lock];
      builder_.ReadUnlock(t, LockName(hold.lock));
    } else {
      writer_[hold.lock].reset();
      builder_.Unlock(t, LockName(hold.lock));
    }
  }

  void Perform(const Action& action) {
    ThreadId t = action.thread;
    SimThread& thread = threads_[t];
    // Forks are free so that the thread count does not eat the main thread's budget.
    bool spends_budget =
        thread.phase == Phase::kRunning && thread.budget > 0 && action.act != Act::kFork;
    switch (action.act) {
      case Act::kBegin:
        builder_.Begin(t);
        thread.phase = Phase::kRunning;
        break;
      case Act::kRead:
        builder_.Read(t, VariableName(action.arg));
        break;
      case Act::kWrite:
        builder_.Write(t, VariableName(action.arg));
        break;
      case Act::kAtomicStore:
        builder_.AtomicStore(t, "flag", Below(2) ? MemoryOrder::kRelease : MemoryOrder::kRelaxed);
        break;
      case Act::kAtomicLoad:
        builder_.AtomicLoad(t, "flag", Below(2) ? MemoryOrder::kAcquire : MemoryOrder::kRelaxed);
        break;
      case Act::kLock:
        if (thread.budget <= 0) thread.closing_lock_taken = true;
        Acquire(t, action.arg, false);
        break;
      case Act::kReadLock:
        Acquire(t, action.arg, true);
        break;
      case Act::kUnlock:
        ReleaseInnermost(t);
        break;
      case Act::kFork: {
        ThreadId child = StartThread(t);
        builder_.Fork(t, child);
        threads_[t].unjoined_children.push_back(child);  // `thread` may dangle after push_back
        break;
      }
      case Act::kJoin: {
        builder_.Join(t, action.arg);
        auto& children = thread.unjoined_children;
        std::erase(children, static_cast<ThreadId>(action.arg));
        break;
      }
      case Act::kWait:
        ReleaseInnermost(t);
        thread.phase = Phase::kWaiting;
        thread.condition = action.arg;
        condition_user_[action.arg] = t;
        break;
      case Act::kNotify:
      case Act::kNotifyAll: {
        uint32_t c = action.arg;
        if (action.act == Act::kNotify)
          builder_.Notify(t, ConditionName(c));
        else
          builder_.NotifyAll(t, ConditionName(c));
        if (condition_user_[c] && threads_[*condition_user_[c]].phase == Phase::kWaiting)
          threads_[*condition_user_[c]].phase = Phase::kWoken;
        break;
      }
      case Act::kTimeout:
      case Act::kWake:
        builder_.Wait(t, ConditionName(thread.condition), action.act == Act::kTimeout);
        condition_user_[thread.condition].reset();
        thread.phase = Phase::kReacquire;
        break;
      case Act::kReacquire:
        Acquire(t, MutexOf(thread.condition), false);
        thread.phase = Phase::kRunning;
        break;
      case Act::kEnd:
        if (options_.thread_begin_end) builder_.End(t);
        thread.phase = Phase::kFinished;
        break;
    }
    if (spends_budget) --threads_[t].budget;
  }

  const RandomTraceOptions& options_;
  std::mt19937_64& rng_;
  uint32_t variables_ = 2;
  uint32_t locks_ = 1;
  uint32_t conditions_ = 0;
  uint32_t target_threads_ = 2;
  size_t target_events_ = 8;
  std::vector<SimThread> threads_;
  std::vector<std::optional<ThreadId>> writer_;
  std::vector<uint32_t> readers_;
  std::vector<std::optional<ThreadId>> condition_user_;  // waiting or woken thread per cv
  TraceBuilder builder_;
};

}  // namespace

RandomTraceGenerator::RandomTraceGenerator(RandomTraceOptions options) : options_(options) {
  if (options_.min_threads < 1 || options_.max_threads < options_.min_threads ||
      options_.max_events < options_.min_events || options_.max_variables < 1)
    throw std::invalid_argument("RandomTraceGenerator: inconsistent options");
}

Trace RandomTraceGenerator::Generate(uint64_t seed) const {
  std::mt19937_64 rng(seed);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    Simulation simulation(options_, rng);
    std::optional<Trace> trace = simulation.Run();
    if (!trace) continue;
    size_t events = trace->size_events();
    if (events < options_.min_events || events > options_.max_events) continue;
    if (simulation.thread_count() < options_.min_threads) continue;
    return *trace;
  }
  throw std::runtime_error("RandomTraceGenerator: no trace within bounds for seed " +
                           std::to_string(seed));
}

}  // namespace pecan::test
