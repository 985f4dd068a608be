// ChunkListPool: many unordered lists of 32-bit values in chunks of kPerChunk values (16 bytes,
// four to a cache line), in a BlockVector, the free chunks in lists too (chunks emptied one at a
// time, and whole cleared lists): the race search's pairs waiting for a class's next member, one
// pool per location (freed with it), millions of values at the peak of a program that walks big
// buffers. A walk of a list reads a chunk for every kPerChunk values, where a linked list read a
// node, in another place, for each; a value takes 5.3 bytes in full chunks, where a node took 8.
// (Chunks of 7 values walked as fast but held more: most lists hold a few dozen values or less,
// and their head chunks are half empty.)
//
// A list is its head chunk's number (kNil: empty). Every chunk of a list but its head is full;
// the head holds its values first, then kNil. Values have no order: Filter fills the place of a
// value it removes with the head's last one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyzer/block_vector.h"

namespace pecan {

class ChunkListPool {
 public:
  static constexpr uint32_t kNil = ~0u;  // the end of a list, the head of an empty one, no value
  static constexpr uint32_t kPerChunk = 3;
  struct alignas(16) Chunk {
    uint32_t next = kNil;
    uint32_t values[kPerChunk] = {kNil, kNil, kNil};
  };
  static_assert(sizeof(Chunk) == 16);

  // Adds `value` (not kNil) to the list at `*head`.
  void Push(uint32_t* head, uint32_t value) {
    if (*head != kNil) {
      Chunk& h = chunks_[*head];
      for (uint32_t& slot : h.values) {
        if (slot == kNil) {
          slot = value;
          return;
        }
      }
    }
    const uint32_t c = NewChunk();
    Chunk& h = chunks_[c];
    h.next = *head;
    h.values[0] = value;
    *head = c;
  }

  // Asks the cache for the head chunk of the list at `head`, which a Push will read.
  void Prefetch(uint32_t head) const {
    if (head != kNil) __builtin_prefetch(&chunks_[head]);
  }

  // Calls `keep(value)` once for each value of the list at `*head` and removes those it returns
  // false for; `keep` may not change the pool.
  template <typename Keep>
  void Filter(uint32_t* head, const Keep& keep) {
    for (uint32_t at = *head; at != kNil;) {
      Chunk& c = chunks_[at];
      bool freed = false;  // `at` was the head and is empty
      for (uint32_t p = 0; p < kPerChunk && c.values[p] != kNil;) {
        if (keep(c.values[p])) {
          ++p;
          continue;
        }
        // The head's last value takes its place: one visited already, unless the head is this
        // chunk (then one after p, or p itself was the last).
        const uint32_t first = *head;
        Chunk& h = chunks_[first];
        uint32_t last = kPerChunk - 1;
        while (h.values[last] == kNil) --last;
        c.values[p] = h.values[last];
        h.values[last] = kNil;
        if (first != at) ++p;
        if (last == 0) {  // the head is empty: the chunk after it heads the list
          *head = h.next;
          FreeChunk(first);
          if (first == at) {
            freed = true;
            break;
          }
        }
      }
      at = freed ? *head : c.next;
    }
  }

  // Empties the list at `*head` at once: its chunks are kept whole for Push to take before it
  // makes new ones (a class's list of waiting pairs can hold tens of thousands when it
  // completes, and a walk over its chunks would visit each).
  void Clear(uint32_t* head) {
    if (*head == kNil) return;
    cleared_.push_back(*head);
    *head = kNil;
  }

  // The room for values in the chunks held: in lists, and in cleared lists Push has not reused
  // all of yet (it takes their chunks before it makes new ones).
  size_t held() const { return (chunks_.size() - free_chunks_) * kPerChunk; }
  // Every chunk made so far (free or not).
  size_t made() const { return chunks_.size(); }

 private:
  uint32_t NewChunk() {
    uint32_t c = free_;
    if (c != kNil) {
      free_ = chunks_[c].next;
      --free_chunks_;
    } else if (!cleared_.empty()) {
      c = cleared_.back();
      if (chunks_[c].next == kNil) {
        cleared_.pop_back();
      } else {
        cleared_.back() = chunks_[c].next;
      }
    } else {
      c = static_cast<uint32_t>(chunks_.size());
      chunks_.push_back(Chunk{});
      return c;
    }
    chunks_[c] = Chunk{};
    return c;
  }
  void FreeChunk(uint32_t c) {
    chunks_[c].next = free_;
    free_ = c;
    ++free_chunks_;
  }

  BlockVector<Chunk> chunks_;
  uint32_t free_ = kNil;           // the chunks emptied one at a time (Filter)
  size_t free_chunks_ = 0;         // in free_
  std::vector<uint32_t> cleared_;  // the heads of cleared lists (Clear), whose chunks are free
};

}  // namespace pecan
