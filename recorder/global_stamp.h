// The one global counter that orders synchronization events: each stamped event takes the next
// value while its synchronization is held, so stamps are dense and their order is a real order.
#pragma once

#include <atomic>
#include <cstdint>

namespace pecan::rt {

struct alignas(64) GlobalStamp {
  std::atomic<uint64_t> next{0};
};

// Next stamp to hand out. The writer emits stamped events in exactly this order.
extern GlobalStamp global_stamp;

inline uint64_t TakeStamp() {
  return global_stamp.next.fetch_add(1, std::memory_order_relaxed);
}
inline uint64_t StampsTaken() {
  return global_stamp.next.load(std::memory_order_acquire);
}

}  // namespace pecan::rt
