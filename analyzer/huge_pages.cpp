#include "analyzer/huge_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; glibc's headers name it from 2.37
#endif

namespace pecan {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

// The end of the heap (glibc keeps it: no system call), rounded down to a huge page.
uintptr_t HeapEndFloor() {
  return reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
}

}  // namespace

// The heap's first partial huge page is left as it is: it may begin below the heap.
HugePageHeap::HugePageHeap(double share) : done_(HeapEndFloor() + kHugePage), share_(share) {}

size_t HugePageHeap::Follow() {
  if (!supported_) return 0;
  const uintptr_t end = HeapEndFloor();
  if (end <= done_) return 0;
  const uintptr_t begin = done_;
  done_ = end;
  const Clock::time_point now = Clock::now();
  if (static_cast<double>(spent_.count()) > share_ * static_cast<double>((now - start_).count()))
    return 0;
  // Synchronous: the pages are copied into huge ones now (the heap's are already touched, so
  // MADV_HUGEPAGE would leave them to khugepaged's slow scan). A range it cannot collapse now
  // (no free huge page) keeps small pages.
  const int collapsed = madvise(reinterpret_cast<void*>(begin), end - begin, MADV_COLLAPSE);
  const int error = errno;
  spent_ += Clock::now() - now;
  if (collapsed == 0) return end - begin;
  if (error == EINVAL || error == EPERM) supported_ = false;  // an older kernel, or THP off
  return 0;
}

void ReturnFreedHeap() {
  malloc_trim(0);
}

}  // namespace pecan
