// The per-thread filter that records a plain access only the first time its thread makes it in
// an epoch: a repeat (same address, size, kind and instruction) adds nothing to the analysis.
#pragma once

#include <cstdint>

#include "recorder/event_slot.h"

namespace pecan::rt {

// An epoch is a stretch of one thread's events with no non-plain event (synchronization,
// atomic, allocation, FUNC_ENTRY/FUNC_EXIT, ...) in it: its accesses have one lockset, one
// atomic region and the same happens-before relation to every other thread's events, so a
// repeated access in it is interchangeable with the first (DESIGN.md section 6, "Compactness").
// Replay tells repeats apart exactly (replayer/clip_follow_policy.h), so this filter may be
// lossy: a repeat it misses is recorded, never the other way round.
//
// Two-way set-associative: 2048 sets of two 16-byte entries (64 KiB per thread, mmap'd). An
// entry is the access's slot word (address, kind, size) and its pc with the epoch in the top 16
// bits. A set keeps the two accesses it saw last, the newer one first, so two access streams
// that land on the same sets (a loop's read and write of one array, whose placement depends on
// where ASLR put the code) share them instead of evicting each other every time; a third evicts
// the older, which only lets a later repeat through. Every 65536 epochs the table is cleared, so
// a stale entry can never match a new epoch with the same 16 bits.
// (4096 entries measured best on bench/recorder's matmul: 1024 entries let 7x more repeats
// through, 16384 are no faster; direct-mapped, a plain loop recorded 1x or 30x its distinct
// accesses depending on the run's code addresses.)
inline constexpr uint64_t kRepeatEntries = 4096;
inline constexpr uint64_t kRepeatSets = kRepeatEntries / 2;
static_assert(kRepeatSets == 2048, "RepeatSet spreads offsets over 11 bits");

struct RepeatEntry {
  uint64_t word;  // PackPlainWord of the access
  uint64_t pc_epoch;
};

// The recorder counts the repeats it leaves out and hands the count to the thread's next
// event, in the top 16 bits of its slot's pc (event_slot.h). At this many in a row it records
// the next repeat instead, so a count always fits and replay knows exactly how many to allow.
inline constexpr uint32_t kMaxRepeatsBefore = 65535;
inline constexpr int kRepeatsShift = 48;

inline constexpr int kEpochShift = 48;
inline constexpr uint64_t kFirstEpochTag = uint64_t{1} << kEpochShift;

inline uint64_t RepeatSet(uint64_t word, uint64_t pc) {
  // Neighbouring addresses land in neighbouring sets, so a loop over an array fills a run of
  // the table without collisions: the 8-byte block picks the set and the offset inside it
  // (bytes, shorts, ints) the upper part of the table. The kind and the pc move each access's
  // run elsewhere.
  const uint64_t addr = word & kLow48;
  const uint64_t kind = (word >> 48) & 0x1f;
  return ((addr >> 3) ^ ((addr & 7) << 8) ^ (kind << 4) ^
          ((pc * 0x9E3779B97F4A7C15ull) >> (64 - 11))) &
         (kRepeatSets - 1);
}

// True when the access is a repeat in the current epoch; otherwise remembers it.
inline bool IsRepeat(RepeatEntry* table, uint64_t epoch_tag, uint64_t word, uint64_t pc) {
  RepeatEntry* set = table + 2 * RepeatSet(word, pc);
  const uint64_t pc_epoch = (pc & kLow48) | epoch_tag;
  if (set[0].word == word && set[0].pc_epoch == pc_epoch) return true;
  if (set[1].word == word && set[1].pc_epoch == pc_epoch) return true;
  set[1] = set[0];
  set[0] = RepeatEntry{word, pc_epoch};
  return false;
}

// Both return/take memory from mmap (zeroed: no slot word is 0); nullptr when out of memory.
RepeatEntry* CreateRepeatTable();
void DestroyRepeatTable(RepeatEntry* table);
// Starts the next epoch; clears the table when the 16-bit epoch wraps.
void StartNextEpochSlow(RepeatEntry* table, uint64_t& epoch_tag);
inline void StartNextEpoch(RepeatEntry* table, uint64_t& epoch_tag) {
  epoch_tag += kFirstEpochTag;
  if (__builtin_expect(epoch_tag == 0, 0)) StartNextEpochSlow(table, epoch_tag);
}

}  // namespace pecan::rt
