// HugePageHeap: has the kernel back the malloc heap with transparent huge pages (2 MiB) as the
// heap grows. The streaming analysis keeps tens of megabytes of per-location state and reads it
// in no order; with 4 KiB pages the TLB covers a few megabytes of it, so a read that misses the
// cache also walks the page tables. Side by side at 10^7 events, all patterns, the analysis took
// 0.93–0.95 times the CPU time it takes without (bench/analyzer/README.md).
//
// Only where the kernel allows it: Linux 6.1 or later (MADV_COLLAPSE), with transparent huge
// pages not set to "never". Elsewhere the heap keeps its small pages and nothing else changes.
//
// And only while the collapses cost little. A collapse copies each 2 MiB into a new huge page,
// holding the address space's lock (the other threads' page faults wait). On this machine type a
// copy took 0.6-1 ms, or 5-13 ms where the new page's memory was fresh to the virtual machine's
// host: pcompress 1 MiB's 38 collapses took 47 ms in one run and 189 ms in the next, and with none
// it took 0.91-0.95 times the CPU. So the collapses take at most a share of the time since
// construction (kCollapseShare); the heap grown past that keeps its small pages.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace pecan {

class HugePageHeap {
 public:
  static constexpr double kCollapseShare = 0.02;

  // `share`: the most of the time since construction the collapses may take.
  explicit HugePageHeap(double share = kCollapseShare);
  // Collapses the whole 2 MiB pages the heap has gained since the last call into huge pages, if
  // the collapses so far took no more than the share of the time since construction. Cheap when
  // it has not grown (no system call). Returns the bytes collapsed now.
  size_t Follow();

 private:
  using Clock = std::chrono::steady_clock;
  uintptr_t done_ = 0;  // the heap below this is collapsed, or was when it was tried
  bool supported_ = true;
  double share_;
  Clock::time_point start_ = Clock::now();
  Clock::duration spent_{0};  // in collapses
};

// Gives the pages of the heap's free memory back to the kernel (glibc's malloc_trim), where a
// big table was just freed and a big one comes next: the next one may be too big for the heap
// (malloc maps it apart), and the freed pages would stay resident beside it. The first pass's
// merge did so: its key order (4 bytes a key) beside the freed tables of the keys' addresses
// (pcompress 8 MiB: 516 MB resident before the merge, 551 MB in it). So does the end of a streamed
// analysis, before the report reads the trace again (analysis_trace.cpp).
void ReturnFreedHeap();

}  // namespace pecan
