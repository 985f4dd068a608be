// The previous address of each site within the chunk being written or read: in trace format 2,
// a chunk's addr_delta column is relative to it (one instruction mostly touches one address, or
// the next element of an array), shared by the chunk writer and the chunk decoder.
#pragma once

#include <cstdint>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

// A generation stamp per entry makes starting a chunk O(1): stale entries read as address 0.
class PerSiteAddressState {
 public:
  struct Entry {
    uint64_t addr = 0;
    uint32_t generation = 0;
  };

  void StartChunk();
  // Grows the table to hold sites [0, count); pointers from entries() are invalid afterwards.
  void Reserve(size_t count);
  size_t size() const { return entries_.size(); }
  Entry* entries() { return entries_.data(); }
  uint32_t generation() const { return generation_; }

  // The site's previous address in this chunk (0 before its first event); it becomes `addr`.
  static uint64_t Exchange(Entry& entry, uint32_t generation, uint64_t addr) {
    const uint64_t previous = entry.generation == generation ? entry.addr : 0;
    entry = Entry{addr, generation};
    return previous;
  }

 private:
  std::vector<Entry> entries_;
  uint32_t generation_ = 1;
};

}  // namespace pecan
