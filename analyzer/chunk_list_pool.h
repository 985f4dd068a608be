// ChunkListPool: many unordered lists of 32-bit values in chunks of kPerChunk values (16 bytes,
// four to a cache line), in a BlockVector, the free chunks in lists too (chunks emptied one at a
// time, and whole cleared lists): the race search's pairs waiting for a class's next member, one
// pool per location (freed with it), millions of values at the peak of a program that walks big
// buffers. A walk of a list reads a chunk for every kPerChunk values, where a linked list read a
// node, in another place, for each; a value takes 5.3 bytes in full chunks, where a node took 8.
// (Chunks of 7 values walked as fast but held more: most lists hold a few dozen values or less,
// and their head chunks are half empty.)
//
// A list is a handle: its head chunk's number times 4 plus the head's values less one (kNil: an
// empty list). Every chunk of a list but its head is full. A push to a head with room writes
// its value at the place the handle gives, without reading the chunk first: the race search
// pushes a new class onto the lists of the classes it pairs with, each mostly a cache miss
// (pcompress 1 MiB: 4.9 M pushes, and half the time of the pushes was the wait for the head's
// read). Values have no order: Filter fills the place of a value it removes with the head's last
// one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "analyzer/block_vector.h"

namespace pecan {

class ChunkListPool {
 public:
  static constexpr uint32_t kNil = ~0u;  // the end of a list, an empty list's handle, no value
  static constexpr uint32_t kPerChunk = 3;
  struct alignas(16) Chunk {
    uint32_t next = kNil;  // the next chunk's number (kNil: none)
    uint32_t values[kPerChunk] = {kNil, kNil, kNil};
  };
  static_assert(sizeof(Chunk) == 16);
  static_assert(kPerChunk <= 4);  // a head's values less one fit the handle's two low bits

  // Adds `value` (not kNil) to the list `*head`.
  void Push(uint32_t* head, uint32_t value) {
    if (*head != kNil && (*head & 3) + 1 < kPerChunk) {
      ++*head;
      chunks_[*head >> 2].values[*head & 3] = value;
      return;
    }
    const uint32_t c = NewChunk();
    Chunk& h = chunks_[c];
    h.next = *head == kNil ? kNil : *head >> 2;
    h.values[0] = value;
    *head = c << 2;
  }

  // Asks the cache for the head chunk of the list `head`, which a Push will write. Inline always:
  // gcc takes a function whose only effect is a prefetch for one with no effect at all and drops
  // the calls to it (this one's were, until 2026-12-04: pecan held no prefetch of it).
  __attribute__((always_inline)) void Prefetch(uint32_t head) const {
    if (head != kNil) __builtin_prefetch(&chunks_[head >> 2], 1);
  }

  // Calls `keep(value)` once for each value of the list `*head` and removes those it returns
  // false for; `keep` may not change the pool.
  template <typename Keep>
  void Filter(uint32_t* head, const Keep& keep) {
    for (uint32_t at = HeadChunk(*head); at != kNil;) {
      Chunk& c = chunks_[at];
      bool freed = false;  // `at` was the head and is empty
      for (uint32_t p = 0; p < ValuesIn(at, *head);) {
        if (keep(c.values[p])) {
          ++p;
          continue;
        }
        // The head's last value takes its place: one visited already, unless the head is this
        // chunk (then one after p, or p itself was the last).
        const uint32_t first = *head >> 2;
        const uint32_t last = *head & 3;
        Chunk& h = chunks_[first];
        c.values[p] = h.values[last];
        if (first != at) ++p;
        if (last > 0) {
          --*head;
          continue;
        }
        // The head is empty: the chunk after it (full) heads the list.
        *head = h.next == kNil ? kNil : h.next << 2 | (kPerChunk - 1);
        FreeChunk(first);
        if (first == at) {
          freed = true;
          break;
        }
      }
      at = freed ? HeadChunk(*head) : c.next;
    }
  }

  // Empties the list at `*head` at once: its chunks are kept whole for Push to take before it
  // makes new ones (a class's list of waiting pairs can hold tens of thousands when it
  // completes, and a walk over its chunks would visit each).
  void Clear(uint32_t* head) {
    if (*head == kNil) return;
    cleared_.push_back(*head >> 2);
    *head = kNil;
  }

  // The room for values in the chunks held: in lists, and in cleared lists Push has not reused
  // all of yet (it takes their chunks before it makes new ones).
  size_t held() const { return (chunks_.size() - free_chunks_) * kPerChunk; }
  // Every chunk made so far (free or not).
  size_t made() const { return chunks_.size(); }

 private:
  // The head chunk's number of the list `head` (kNil: none).
  static uint32_t HeadChunk(uint32_t head) { return head == kNil ? kNil : head >> 2; }
  // The values chunk `at` of the list `head` holds.
  static uint32_t ValuesIn(uint32_t at, uint32_t head) {
    return head != kNil && head >> 2 == at ? (head & 3) + 1 : kPerChunk;
  }

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
      // A handle holds a chunk's number times 4, below kNil.
      if (chunks_.size() >= (kNil >> 2)) throw std::bad_alloc();
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
