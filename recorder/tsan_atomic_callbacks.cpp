// The __tsan_atomic* callbacks: each really performs the operation with the requested memory
// order and, when recording, takes the next number of its address's stripe under that stripe's
// lock, so the trace order of atomics on one location is their modification order.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "recorder/atomic_stripes.h"
#include "recorder/export.h"
#include "recorder/thread_state.h"

using pecan::EventKind;

// 16-byte atomics (__tsan_atomic128_*) are libatomic calls, with either compiler: the runtime is
// built without -mcx16 so that it loads wherever the program runs, and libatomic picks
// cmpxchg16b itself where the CPU has it. clang warns about each such call; that is the intent.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Watomic-alignment"
#endif

namespace {

using namespace pecan::rt;

using a8 = char;
using a16 = short;
using a32 = int;
using a64 = long;
using a128 = __int128;

// The memory-order argument may carry flag bits above bit 15 (__sync builtins, HLE).
inline int OrderOf(int mo) {
  int order = mo & 0x7fff;
  return order <= 5 ? order : 5;
}

// What an operation did, for the trace.
template <typename R>
struct Outcome {
  R value;
  EventKind kind;
  int order;
};

// What the replay is told before the operation runs: its kind, or a compare-exchange (whose
// kind depends on whether it succeeds).
enum class Upcoming : uint8_t { kLoad, kStore, kRmw, kCompareExchange };

inline EventKind KindOf(Upcoming upcoming) {
  switch (upcoming) {
    case Upcoming::kLoad:
      return EventKind::kAtomicLoad;
    case Upcoming::kStore:
      return EventKind::kAtomicStore;
    default:
      return EventKind::kAtomicRmw;
  }
}

// Runs `op` (which returns an Outcome) and records it atomically with its effect.
template <typename T, typename Op>
inline auto Recorded(const volatile T* addr, uint64_t pc, Upcoming upcoming, Op op)
    -> decltype(op().value) {
  ThreadState& t = tls_thread;
  BeforeSectionEvent(t, KindOf(upcoming), reinterpret_cast<uintptr_t>(addr));
  if (!(t.gates & kGateEvents)) return op().value;
  if (__builtin_expect(t.gates & kGateReplay, 0)) {
    const uint64_t target = reinterpret_cast<uintptr_t>(addr);
    switch (upcoming) {
      case Upcoming::kLoad:
        ReplayBeforeEvent(EventKind::kAtomicLoad, pc, target, sizeof(T));
        break;
      case Upcoming::kStore:
        ReplayBeforeEvent(EventKind::kAtomicStore, pc, target, sizeof(T));
        break;
      case Upcoming::kRmw:
        ReplayBeforeEvent(EventKind::kAtomicRmw, pc, target, sizeof(T));
        break;
      case Upcoming::kCompareExchange:
        ReplayBeforeCompareExchange(pc, target, sizeof(T));
        break;
    }
  }
  uint32_t saved;
  if (!BeginStamped(t, saved)) {
    EndStamped(t, saved);
    return op().value;
  }
  const uint32_t stripe_index = StripeIndexFor(addr);
  SpinLock& stripe = atomic_stripes[stripe_index].lock;
  stripe.lock();
  auto outcome = op();
  CommitStriped(t, outcome.kind, uint8_t(outcome.order), reinterpret_cast<uintptr_t>(addr),
                sizeof(T), pc, stripe_index);
  stripe.unlock();
  EndStamped(t, saved);
  return outcome.value;
}

template <typename T>
T LoadWith(const volatile T* a, int order) {
  switch (order) {
    case 0:
      return __atomic_load_n(a, __ATOMIC_RELAXED);
    case 1:
    case 2:
      return __atomic_load_n(a, __ATOMIC_ACQUIRE);  // consume is implemented as acquire
    default:
      return __atomic_load_n(a, __ATOMIC_SEQ_CST);  // (release/acq_rel are invalid for loads)
  }
}

template <typename T>
void StoreWith(volatile T* a, T v, int order) {
  switch (order) {
    case 0:
      __atomic_store_n(a, v, __ATOMIC_RELAXED);
      return;
    case 3:
      __atomic_store_n(a, v, __ATOMIC_RELEASE);
      return;
    default:
      __atomic_store_n(a, v, __ATOMIC_SEQ_CST);  // (consume/acquire/acq_rel are invalid)
      return;
  }
}

// Dispatches a read-modify-write on the order: `op` is called with the order as a constant.
template <typename Op>
auto RmwWith(int order, Op op) {
  switch (order) {
    case 0:
      return op(std::integral_constant<int, __ATOMIC_RELAXED>{});
    case 1:
    case 2:
      return op(std::integral_constant<int, __ATOMIC_ACQUIRE>{});
    case 3:
      return op(std::integral_constant<int, __ATOMIC_RELEASE>{});
    case 4:
      return op(std::integral_constant<int, __ATOMIC_ACQ_REL>{});
    default:
      return op(std::integral_constant<int, __ATOMIC_SEQ_CST>{});
  }
}

// Compare-exchange with a valid (success, failure) pair at least as strong as requested.
template <typename T>
bool CasWith(volatile T* a, T* expected, T desired, int success, int failure) {
  const int fail = failure == 5 ? 5 : (failure == 1 || failure == 2) ? 2 : 0;
#define PECAN_CAS(s, f) __atomic_compare_exchange_n(a, expected, desired, false, s, f)
  if (fail == 5) return PECAN_CAS(__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  if (fail == 2) {
    switch (success) {
      case 4:
      case 3:
        return PECAN_CAS(__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
      case 5:
        return PECAN_CAS(__ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE);
      default:
        return PECAN_CAS(__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE);
    }
  }
  switch (success) {
    case 0:
      return PECAN_CAS(__ATOMIC_RELAXED, __ATOMIC_RELAXED);
    case 1:
    case 2:
      return PECAN_CAS(__ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    case 3:
      return PECAN_CAS(__ATOMIC_RELEASE, __ATOMIC_RELAXED);
    case 4:
      return PECAN_CAS(__ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    default:
      return PECAN_CAS(__ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
  }
#undef PECAN_CAS
}

template <typename T>
T Load(const volatile T* a, int mo, uint64_t pc) {
  const int order = OrderOf(mo);
  return Recorded(a, pc, Upcoming::kLoad, [&] {
    return Outcome<T>{LoadWith(a, order), EventKind::kAtomicLoad, order};
  });
}

template <typename T>
void Store(volatile T* a, T v, int mo, uint64_t pc) {
  const int order = OrderOf(mo);
  Recorded(a, pc, Upcoming::kStore, [&] {
    StoreWith(a, v, order);
    return Outcome<int>{0, EventKind::kAtomicStore, order};
  });
}

template <typename T>
bool CompareExchange(volatile T* a, T* expected, T desired, int mo, int fail_mo, uint64_t pc) {
  const int order = OrderOf(mo);
  const int fail_order = OrderOf(fail_mo);
  return Recorded(a, pc, Upcoming::kCompareExchange, [&] {
    bool swapped = CasWith(a, expected, desired, order, fail_order);
    // A failed compare-exchange only read the location, with the failure order.
    return Outcome<bool>{swapped, swapped ? EventKind::kAtomicRmw : EventKind::kAtomicLoad,
                         swapped ? order : fail_order};
  });
}

template <typename T>
T CompareExchangeValue(volatile T* a, T expected, T desired, int mo, int fail_mo, uint64_t pc) {
  CompareExchange(a, &expected, desired, mo, fail_mo, pc);
  return expected;  // the old value either way
}

}  // namespace

// One set of callbacks per width. Every read-modify-write is recorded as ATOMIC_RMW.
#define PECAN_RMW_CALLBACK(bits, name, builtin)                                                \
  PECAN_EXPORT a##bits __tsan_atomic##bits##_##name(volatile a##bits* a, a##bits v, int mo) {  \
    const int order = OrderOf(mo);                                                             \
    return Recorded(a, PECAN_CALLER_PC(), Upcoming::kRmw, [&] {                                \
      a##bits old = RmwWith(order, [&](auto o) { return builtin(a, v, decltype(o)::value); }); \
      return Outcome<a##bits>{old, EventKind::kAtomicRmw, order};                              \
    });                                                                                        \
  }

#define PECAN_ATOMIC_CALLBACKS(bits)                                                               \
  PECAN_EXPORT a##bits __tsan_atomic##bits##_load(const volatile a##bits* a, int mo) {             \
    return Load(a, mo, PECAN_CALLER_PC());                                                         \
  }                                                                                                \
  PECAN_EXPORT void __tsan_atomic##bits##_store(volatile a##bits* a, a##bits v, int mo) {          \
    Store(a, v, mo, PECAN_CALLER_PC());                                                            \
  }                                                                                                \
  PECAN_RMW_CALLBACK(bits, exchange, __atomic_exchange_n)                                          \
  PECAN_RMW_CALLBACK(bits, fetch_add, __atomic_fetch_add)                                          \
  PECAN_RMW_CALLBACK(bits, fetch_sub, __atomic_fetch_sub)                                          \
  PECAN_RMW_CALLBACK(bits, fetch_and, __atomic_fetch_and)                                          \
  PECAN_RMW_CALLBACK(bits, fetch_or, __atomic_fetch_or)                                            \
  PECAN_RMW_CALLBACK(bits, fetch_xor, __atomic_fetch_xor)                                          \
  PECAN_RMW_CALLBACK(bits, fetch_nand, __atomic_fetch_nand)                                        \
  PECAN_EXPORT int __tsan_atomic##bits##_compare_exchange_strong(volatile a##bits* a, a##bits* c,  \
                                                                 a##bits v, int mo, int fail_mo) { \
    return CompareExchange(a, c, v, mo, fail_mo, PECAN_CALLER_PC());                               \
  }                                                                                                \
  /* A strong compare-exchange is a valid weak one (it just never fails spuriously). */            \
  PECAN_EXPORT int __tsan_atomic##bits##_compare_exchange_weak(volatile a##bits* a, a##bits* c,    \
                                                               a##bits v, int mo, int fail_mo) {   \
    return CompareExchange(a, c, v, mo, fail_mo, PECAN_CALLER_PC());                               \
  }                                                                                                \
  PECAN_EXPORT a##bits __tsan_atomic##bits##_compare_exchange_val(                                 \
      volatile a##bits* a, a##bits c, a##bits v, int mo, int fail_mo) {                            \
    return CompareExchangeValue(a, c, v, mo, fail_mo, PECAN_CALLER_PC());                          \
  }

PECAN_ATOMIC_CALLBACKS(8)
PECAN_ATOMIC_CALLBACKS(16)
PECAN_ATOMIC_CALLBACKS(32)
PECAN_ATOMIC_CALLBACKS(64)
PECAN_ATOMIC_CALLBACKS(128)

// Fences carry no address; a thread fence is a stamped FENCE event with its order.
PECAN_EXPORT void __tsan_atomic_thread_fence(int mo) {
  const int order = OrderOf(mo);
  RecordSync(EventKind::kFence, uint8_t(order), 0, 0, PECAN_CALLER_PC());
  RmwWith(order, [](auto o) {
    __atomic_thread_fence(decltype(o)::value);
    return 0;
  });
}

// A signal fence only orders against handlers on the same thread: nothing to record.
PECAN_EXPORT void __tsan_atomic_signal_fence(int mo) {
  (void)mo;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
