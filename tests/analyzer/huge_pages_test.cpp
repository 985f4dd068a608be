// HugePageHeap: the heap a program grows is collapsed into huge pages where the kernel allows it,
// and its bytes are left as they were. ReturnFreedHeap: the freed middle of the heap stops being
// resident.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/huge_pages.h"

using namespace pecan;

namespace {

// The process's anonymous memory in huge pages, from /proc/self/smaps_rollup (0 if unreadable).
uint64_t AnonHugeBytes() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string name;
  uint64_t kb = 0;
  while (in >> name) {
    if (name == "AnonHugePages:" && in >> kb) return kb * 1024;
  }
  return 0;
}

// The process's resident memory, from /proc/self/statm (0 if unreadable).
uint64_t ResidentBytes() {
  std::ifstream in("/proc/self/statm");
  uint64_t pages = 0;
  uint64_t resident = 0;
  if (!(in >> pages >> resident)) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Blocks of 64 KiB (below malloc's mmap threshold, so they come from the heap), each byte
// written, added to `blocks` until the heap has grown by `bytes`: in a process that ran other
// tests before, the first ones may take free room the heap already has. At most 64 MiB of them (a
// malloc that is not glibc's, as under AddressSanitizer, does not grow the heap). Returns the bytes
// the heap grew by.
constexpr size_t kBlock = 64 << 10;
size_t GrowHeap(size_t bytes, std::vector<std::unique_ptr<uint8_t[]>>* blocks) {
  const auto heap_end = [] { return reinterpret_cast<uintptr_t>(sbrk(0)); };
  const uintptr_t start = heap_end();
  for (size_t added = 0; heap_end() - start < bytes && added < 1024; ++added) {
    blocks->emplace_back(new uint8_t[kBlock]);
    std::fill(blocks->back().get(), blocks->back().get() + kBlock, uint8_t{0x5A});
  }
  return heap_end() - start;
}

}  // namespace

TEST_CASE("HugePageHeap collapses the heap grown under it and keeps its bytes", "[memory]") {
  HugePageHeap heap;
  // Blocks of 64 KiB (below malloc's mmap threshold, so they come from the heap) until the heap
  // has grown by 16 MiB: in a process that ran other tests before, the first ones may take free
  // room the heap already has. At most 64 MiB of them (a malloc that is not glibc's, as under
  // AddressSanitizer, does not grow the heap).
  const auto heap_end = [] { return reinterpret_cast<uintptr_t>(sbrk(0)); };
  const uintptr_t start = heap_end();
  std::vector<std::unique_ptr<uint8_t[]>> blocks;
  while (heap_end() - start < (16u << 20) && blocks.size() < 1024) {
    const size_t b = blocks.size();
    blocks.emplace_back(new uint8_t[kBlock]);
    for (size_t k = 0; k < kBlock; ++k) blocks[b][k] = static_cast<uint8_t>(b * 31 + k / 7);
  }
  const uint64_t huge_before = AnonHugeBytes();
  const size_t collapsed = heap.Follow();
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (size_t k = 0; k < kBlock; ++k) {
      if (blocks[b][k] != static_cast<uint8_t>(b * 31 + k / 7))
        FAIL("byte " << k << " of block " << b);
    }
  }
  CHECK(heap.Follow() == 0);  // the heap has not grown since
  if (collapsed == 0) {
    WARN("this kernel did not collapse the heap (MADV_COLLAPSE needs Linux 6.1 and THP on)");
  } else {
    CHECK(collapsed % (2 << 20) == 0);
    CHECK(collapsed >= 8 << 20);  // most of the 16 MiB the heap grew by
    CHECK(AnonHugeBytes() >= huge_before + collapsed);
  }
}

TEST_CASE("HugePageHeap collapses no more once the collapses took their share of the time",
          "[memory]") {
  std::vector<std::unique_ptr<uint8_t[]>> blocks;
  // A share of 0: the first collapse takes more than none of the time, and none follows.
  HugePageHeap none_after_first(0.0);
  GrowHeap(8u << 20, &blocks);
  if (none_after_first.Follow() == 0) {
    WARN("this kernel did not collapse the heap (MADV_COLLAPSE needs Linux 6.1 and THP on)");
    return;
  }
  GrowHeap(8u << 20, &blocks);
  CHECK(none_after_first.Follow() == 0);
  // A share of all the time: the collapses take part of it at most, and every one comes.
  HugePageHeap every(1.0);
  GrowHeap(8u << 20, &blocks);
  CHECK(every.Follow() > 0);
  GrowHeap(8u << 20, &blocks);
  CHECK(every.Follow() > 0);
}

TEST_CASE("ReturnFreedHeap gives back the freed middle of the heap", "[memory]") {
  // 32 MiB of heap blocks, written, then all but a last one freed: the last keeps free() from
  // trimming the heap's top, so the freed ones stay resident until ReturnFreedHeap.
  std::vector<std::unique_ptr<uint8_t[]>> blocks;
  if (GrowHeap(32u << 20, &blocks) < (32u << 20)) {
    WARN("malloc did not grow the heap (not glibc's malloc, as under AddressSanitizer)");
    return;
  }
  std::unique_ptr<uint8_t[]> last = std::move(blocks.back());
  blocks.pop_back();
  blocks.clear();
  const uint64_t before = ResidentBytes();
  ReturnFreedHeap();
  const uint64_t after = ResidentBytes();
  CHECK(before >= after + (24u << 20));  // most of the 32 MiB freed
  CHECK(last[kBlock - 1] == 0x5A);       // the block still held keeps its bytes
}
