// HugePageHeap: has the kernel back the malloc heap with transparent huge pages (2 MiB) as the
// heap grows. The streaming analysis keeps tens of megabytes of per-location state and reads it
// in no order; with 4 KiB pages the TLB covers a few megabytes of it, so a read that misses the
// cache also walks the page tables. Side by side at 10^7 events, all patterns, the analysis took
// 0.93–0.95 times the CPU time it takes without (bench/analyzer/README.md).
//
// Only where the kernel allows it: Linux 6.1 or later (MADV_COLLAPSE), with transparent huge
// pages not set to "never". Elsewhere the heap keeps its small pages and nothing else changes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pecan {

class HugePageHeap {
 public:
  HugePageHeap();
  // Collapses the whole 2 MiB pages the heap has gained since the last call into huge pages.
  // Cheap when it has not grown (no system call). Returns the bytes collapsed now.
  size_t Follow();

 private:
  uintptr_t done_ = 0;  // the heap below this is collapsed, or was when it was tried
  bool supported_ = true;
};

}  // namespace pecan
