// ClassesSeen: the first pass's set of the access classes seen so far, as (key, stream) pairs
// (KeptAccesses::FollowAccess), millions of them for a program that walks big buffers. A set per
// page of 2^kPageBits keys numbered in a row: a buffer's bytes, numbered as a thread first walked
// them, are walked again in a row, and their classes are then found in one page's set, in the
// cache (one set of them all missed it at nearly every access: pcompress 8 MiB, 9.5% of the
// analysis's time). A slot is 4 bytes, the key's place in its page and the stream, while every
// stream's number is below a bound (2^24 - 1: a program with that many threads, sites, lock sets
// and kinds of access is not seen); past it, one set of whole pairs, 8 bytes a slot, takes them
// all. With slots of 8 bytes, pcompress 1 MiB's sets held 9.9 MB at the first pass's peak. A
// page's set is a RowSet: the slots of 16 keys in a row with one stream share a cache line.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "analyzer/flat_hash_map.h"
#include "analyzer/row_set.h"

namespace pecan {

class ClassesSeen {
 public:
  static constexpr uint32_t kPageBits = RowSet::kPlaceBits;
  static constexpr uint32_t kStreamBits = 32 - kPageBits;
  // The streams a page's slot holds: below 2^24 - 1, so that no slot is FlatSet's kEmpty.
  static constexpr uint32_t kPackedStreams = (uint32_t{1} << kStreamBits) - 1;

  // `packed_streams` (at most kPackedStreams): the streams held in pages; a test lowers it.
  explicit ClassesSeen(uint32_t packed_streams = kPackedStreams)
      : packed_streams_(std::min(packed_streams, kPackedStreams)) {}

  // Adds the class of key `key` and stream `stream`; false if it was seen.
  bool Insert(uint32_t key, uint32_t stream) {
    if (stream >= packed_streams_ && !whole_) Unpack();
    if (whole_) return whole_->Insert(uint64_t{key} << 32 | stream);
    const uint32_t page = key >> kPageBits;
    if (page >= pages_.size()) pages_.resize(page + 1, RowSet(1));
    const uint32_t place = key & ((uint32_t{1} << kPageBits) - 1);
    return pages_[page].Insert(place << kStreamBits | stream);
  }

  // Whether the pairs are in one set of whole pairs (a stream past the bound came).
  bool unpacked() const { return whole_ != nullptr; }

 private:
  // Moves every pair to one set of whole pairs.
  void Unpack() {
    size_t count = 0;
    for (const RowSet& page : pages_) count += page.size();
    whole_ = std::make_unique<FlatU64Set>(count * 2 + 16);
    for (uint32_t page = 0; page < pages_.size(); ++page) {
      pages_[page].ForEach([&](uint32_t slot) {
        const uint32_t key = page << kPageBits | slot >> kStreamBits;
        const uint32_t stream = slot & ((uint32_t{1} << kStreamBits) - 1);
        whole_->Insert(uint64_t{key} << 32 | stream);
      });
    }
    std::vector<RowSet>().swap(pages_);
  }

  uint32_t packed_streams_;
  std::vector<RowSet> pages_;
  std::unique_ptr<FlatU64Set> whole_;
};

}  // namespace pecan
