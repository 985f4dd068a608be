// LocationTable: one pass keys each access by (address, size, allocation version), then the
// distinct keys (far fewer than accesses) are merged into locations and filtered.
#include "analyzer/access_locations.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <numeric>

#include "analyzer/access_stream.h"
#include "analyzer/byte_key_lines.h"
#include "analyzer/byte_order_sort.h"
#include "analyzer/classes_seen.h"
#include "analyzer/flat_hash_map.h"
#include "analyzer/held_locks.h"
#include "analyzer/huge_pages.h"
#include "analyzer/window_prefilter.h"

namespace pecan {
namespace {

// Which FREE/ALLOC last covered each byte: disjoint painted intervals, start -> (end, version).
// Versions are numbered in the order of their paints.
class AllocationVersions {
 public:
  void Paint(uint64_t begin, uint64_t end, uint32_t version) {
    if (begin >= end) return;
    if (((end - 1) >> kPageBits) - (begin >> kPageBits) >= kMaxMarkedPages) {
      wide_paint_ = version;
    } else {
      for (uint64_t page = begin >> kPageBits; page <= (end - 1) >> kPageBits; ++page)
        page_paints_[PageSlot(page)] = version;
    }
    // Split intervals straddling begin and end, then drop everything inside.
    SplitAt(begin);
    SplitAt(end);
    intervals_.erase(intervals_.lower_bound(begin), intervals_.lower_bound(end));
    intervals_.emplace(begin, std::make_pair(end, version));
  }
  uint32_t VersionAt(uint64_t addr) const {
    uint64_t lo = 0;
    uint64_t hi = 0;
    return VersionRun(addr, &lo, &hi);
  }
  // VersionAt(addr), and bytes [*lo, *hi) around `addr` that have it now: one paint's, or a gap
  // between paints.
  uint32_t VersionRun(uint64_t addr, uint64_t* lo, uint64_t* hi) const {
    auto it = intervals_.upper_bound(addr);
    *hi = it == intervals_.end() ? ~uint64_t{0} : it->first;
    *lo = 0;
    if (it == intervals_.begin()) return 0;
    --it;
    if (addr < it->second.first) {
      *lo = it->first;
      *hi = it->second.first;
      return it->second.second;
    }
    *lo = it->second.first;
    return 0;
  }
  // False when no paint after version `seen` covered `addr`, so VersionAt(addr) is as it was
  // then; true when one may have. Without a walk of the intervals: a paint marks the pages it
  // covers (in slots shared by many pages), or, if it covers many, all of them.
  bool MayHaveRepainted(uint64_t addr, uint32_t seen) const {
    return wide_paint_ > seen || page_paints_[PageSlot(addr >> kPageBits)] > seen;
  }

 private:
  static constexpr int kPageBits = 12;
  static constexpr uint64_t kMaxMarkedPages = 64;
  static constexpr size_t kPageSlots = 4096;
  static size_t PageSlot(uint64_t page) {
    return static_cast<size_t>((page ^ ((page >> 12) * 0x9E3779B97F4A7C15ull >> 52)) &
                               (kPageSlots - 1));
  }

  void SplitAt(uint64_t point) {
    auto it = intervals_.upper_bound(point);
    if (it == intervals_.begin()) return;
    --it;
    const uint64_t start = it->first;
    const auto [end, version] = it->second;
    if (start < point && point < end) {
      it->second.first = point;
      intervals_.emplace(point, std::make_pair(end, version));
    }
  }
  std::map<uint64_t, std::pair<uint64_t, uint32_t>> intervals_;
  // The latest paint of each page slot, and of every page (a paint of many pages).
  std::vector<uint32_t> page_paints_ = std::vector<uint32_t>(kPageSlots, 0);
  uint32_t wide_paint_ = 0;
};

// The per-access lookup of the one pass: open addressing in flat arrays of 8-byte slots, filled
// to between 3/5 and 3/4. There is a slot per distinct (address, size) the program touched (but
// single bytes: ByteKeyLines), millions for a program that walks big buffers, so the slot size
// and the load are the pass's memory (a node-based map would also spend the pass on cache
// misses). A slot names the key of the (address, size)'s current allocation version; the key's
// entry (KeyInfo, which the pass reads at every access anyway) holds the address and size, and
// the slot the low 32 bits of their hash, which tell most other (address, size)s apart without a
// look at the entry and place the slot again when the table grows. The table is kShards tables, by
// the hash's top bits, each growing on its own by a quarter: a growth holds one small table's old
// and new arrays at once, not the whole one's, and the load stays high (tables that doubled
// together were filled to between 3/8 and 3/4, all at once: 40% at the end of one trace).
class RangeStates {
 public:
  static constexpr uint32_t kNoKey = ~0u;
  struct Slot {
    uint32_t key = kNoKey;  // kNoKey: an empty slot (until the caller names the new key)
    uint32_t hash = 0;
  };

  RangeStates() : shards_(kShards, Shard{std::vector<Slot>(kFirstSlots), 0}) {}

  // The slot of (addr, size): found, or new (its key kNoKey: the caller names its key before the
  // next call). `key_range(key)` gives a key's (address, size).
  template <typename KeyRange>
  Slot& FindOrInsert(uint64_t addr, uint32_t size, const KeyRange& key_range) {
    const auto hash = static_cast<uint32_t>(Hash(addr, size));
    Shard& shard = shards_[hash >> (32 - kShardBits)];
    if (FullerThanThreeQuarters(shard.used, shard.slots.size())) Grow(shard);
    const size_t slots = shard.slots.size();
    for (size_t at = Home(hash, slots);; at = NextSlot(at, slots)) {
      Slot& slot = shard.slots[at];
      if (slot.key == kNoKey) {
        slot.hash = hash;
        ++shard.used;
        return slot;
      }
      if (slot.hash == hash && key_range(slot.key) == std::make_pair(addr, size)) return slot;
    }
  }

 private:
  static constexpr uint32_t kShardBits = 8;
  static constexpr size_t kShards = size_t{1} << kShardBits;
  static constexpr size_t kFirstSlots = 8;
  struct Shard {
    std::vector<Slot> slots;
    size_t used = 0;
  };

  static uint64_t Hash(uint64_t addr, uint32_t size) {
    uint64_t h = addr * 0x9E3779B97F4A7C15ull;
    h ^= (h >> 29) ^ (uint64_t{size} * 0xBF58476D1CE4E5B9ull);
    return h ^ (h >> 32);
  }
  // A slot's first place in a table of `slots`: the hash's low 24 bits (the top ones chose the
  // shard) scaled to the table, which need not be a power of two.
  static size_t Home(uint32_t hash, size_t slots) { return ScaledSlot(hash & 0xFFFFFF, 24, slots); }

  static void Grow(Shard& shard) {
    std::vector<Slot> old(GrownByAQuarter(shard.slots.size()));
    old.swap(shard.slots);
    const size_t slots = shard.slots.size();
    for (const Slot& slot : old) {
      if (slot.key == kNoKey) continue;
      size_t at = Home(slot.hash, slots);
      while (shard.slots[at].key != kNoKey) at = NextSlot(at, slots);
      shard.slots[at] = slot;
    }
  }

  std::vector<Shard> shards_;
};
static_assert(sizeof(RangeStates::Slot) == 8);

// A FREE, with the version its block had before it and the one it starts.
struct FreeEvent {
  EventIndex event;
  ThreadId thread;
  uint64_t begin;
  uint64_t end;
  uint32_t ended_version;
  uint32_t started_version;
};

// A deque, not a vector: hundreds of thousands of FREEs grow in blocks, without a vector's
// moment of holding its old and new arrays at once or its unused doubling.
using FreeTable = std::deque<FreeEvent>;

// A key's range and use, 32 bytes: the pass holds one per key, tens of millions for a program
// that walks big buffers.
struct KeyInfo {
  uint64_t begin;
  EventIndex last : 61;  // the last access
  EventIndex many_threads : 1;
  EventIndex written : 1;
  EventIndex read : 1;
  uint32_t size;
  uint32_t version;
  ThreadId first_thread;
  union {
    // While the pass runs: the allocation events seen when the key's version was last checked
    // (none since: the (address, size)'s version is still the key's).
    uint32_t frees_seen;
    // Once the keys are merged (MergedKeys): the key's location, kNoLocation if dropped.
    LocationId location;
  };
  uint64_t end() const { return begin + size; }
};
static_assert(sizeof(KeyInfo) == 32);

// Per-key entries in blocks of 64 Ki: a table of millions of entries, indexed once per access,
// grows without a vector's moment of holding its old and new arrays at once or its unused
// doubling.
template <typename T>
class BlockTable {
 public:
  size_t size() const { return size_; }
  T& operator[](size_t k) { return blocks_[k >> kShift][k & kMask]; }
  const T& operator[](size_t k) const { return blocks_[k >> kShift][k & kMask]; }
  void push_back(const T& entry) {
    // Not zeroed: a block's pages become resident as its entries are written, not all at once
    // (the last block of pcompress 1 MiB's key table held 1.7 MB it did not use).
    if ((size_ & kMask) == 0) blocks_.push_back(std::make_unique_for_overwrite<T[]>(kMask + 1));
    blocks_.back()[size_ & kMask] = entry;
    ++size_;
  }

 private:
  static constexpr size_t kShift = 16;
  static constexpr size_t kMask = (size_t{1} << kShift) - 1;
  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t size_ = 0;
};
using KeyTable = BlockTable<KeyInfo>;

// Per-key entries in blocks of 64 Ki, like BlockTable, for entries most keys leave at one value,
// `plain`: a block whose keys all have it is not allocated. Keys are added in order.
template <typename T>
class SparseBlockTable {
 public:
  explicit SparseBlockTable(const T& plain = T()) : plain_(plain) {}
  size_t size() const { return size_; }
  // Adds key size() with entry `plain`.
  void push_back_plain() {
    if ((size_ & kMask) == 0) blocks_.emplace_back();
    ++size_;
  }
  // Adds key size() with entry `entry`.
  void push_back(const T& entry) {
    push_back_plain();
    Mutable(size_ - 1) = entry;
  }
  const T& operator[](size_t k) const {
    const auto& block = blocks_[k >> kShift];
    return block ? block[k & kMask] : plain_;
  }
  // Entry k, to change: its block is allocated, its entries `plain`, if it was not.
  T& Mutable(size_t k) {
    auto& block = blocks_[k >> kShift];
    if (!block) {
      block = std::make_unique<T[]>(kMask + 1);
      std::fill(block.get(), block.get() + kMask + 1, plain_);
    }
    return block[k & kMask];
  }
  // Calls `visit` on every entry of an allocated block (the others are `plain`).
  template <typename Visit>
  void ForEachAllocated(Visit visit) {
    for (auto& block : blocks_)
      if (block) std::for_each(block.get(), block.get() + kMask + 1, visit);
  }

 private:
  static constexpr size_t kShift = 16;
  static constexpr size_t kMask = (size_t{1} << kShift) - 1;
  T plain_;
  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t size_ = 0;
};

// The table's one pass over the events, one event at a time: keys each access by (address,
// size, allocation version), numbering keys in order of first use, and notes per key who
// accessed it and how.
class AccessKeyer {
 public:
  // The key of access `i`, or kNoKey (not an access: a FREE or ALLOC starts a new version).
  static constexpr uint32_t kNoKey = ~0u;
  static_assert(kNoKey == RangeStates::kNoKey && kNoKey == ByteKeyLines::kNoKey);
  // Inline: the first pass calls it for every event.
  __attribute__((always_inline)) uint32_t Add(EventIndex i, ThreadId thread, EventKind kind,
                                              uint64_t addr, uint32_t raw_size) {
    if (kind == EventKind::kFree || kind == EventKind::kAlloc) {
      ++allocation_events_;
      const uint64_t begin = addr;
      const uint64_t end = begin + std::max<uint32_t>(raw_size, 1);
      const auto version = static_cast<uint32_t>(allocation_events_);
      // A block's bytes share the version its ALLOC painted: its first byte's stands for all.
      if (kind == EventKind::kFree)
        frees_.push_back(FreeEvent{i, thread, begin, end, versions_.VersionAt(begin), version});
      versions_.Paint(begin, end, version);
      return kNoKey;
    }
    if (!IsAccess(kind)) return kNoKey;
    const uint32_t size = std::max<uint32_t>(raw_size, 1);
    // Bytes accessed one at a time in lines of slots, other (address, size)s in a hash table.
    uint32_t& slot =
        size == 1 ? bytes_.Slot(addr)
                  : states_
                        .FindOrInsert(addr, size,
                                      [&](uint32_t key) {
                                        return std::make_pair(keys_[key].begin, keys_[key].size);
                                      })
                        .key;
    const auto frees_seen = static_cast<uint32_t>(allocation_events_);
    if (slot == kNoKey) {
      NewKey(slot, i, thread, addr, size, VersionNow(addr));
    } else if (KeyInfo& known = keys_[slot]; known.frees_seen != frees_seen) {
      const uint32_t checked = known.frees_seen;
      known.frees_seen = frees_seen;
      if (versions_.MayHaveRepainted(addr, checked)) {
        const uint32_t version = VersionNow(addr);
        if (version != known.version) NewKey(slot, i, thread, addr, size, version);
      }
    }
    KeyInfo& key = keys_[slot];
    key.last = i;
    if (thread != key.first_thread) key.many_threads = true;
    if (IsWriteAccess(kind)) {
      key.written = true;
    } else if (IsReadAccess(kind)) {
      key.read = true;
    }
    return slot;
  }

  // Each key's range and use, and the FREEs in trace order.
  const KeyTable& keys() const { return keys_; }
  const FreeTable& frees() const { return frees_; }
  KeyTable TakeKeys() { return std::move(keys_); }
  FreeTable TakeFrees() { return std::move(frees_); }

 private:
  uint32_t VersionNow(uint64_t addr) const {
    return allocation_events_ == 0 ? 0 : versions_.VersionAt(addr);
  }
  // Names a new key, of the (address, size) version in force now, in `slot`.
  void NewKey(uint32_t& slot, EventIndex i, ThreadId thread, uint64_t addr, uint32_t size,
              uint32_t version) {
    slot = static_cast<uint32_t>(keys_.size());
    KeyInfo key{};
    key.begin = addr;
    key.last = i;
    key.size = size;
    key.version = version;
    key.first_thread = thread;
    key.frees_seen = static_cast<uint32_t>(allocation_events_);
    keys_.push_back(key);
  }

  ByteKeyLines bytes_;  // names keys_ of one byte
  RangeStates states_;  // names the other keys_
  AllocationVersions versions_;
  uint64_t allocation_events_ = 0;
  KeyTable keys_;
  FreeTable frees_;
};

// Overlapping keys of one version merged into components (locations before the filter), each
// FREE against the components of the two versions it borders, and the filter applied. This is
// done one component at a time, so only the kept components are held: a program that allocates
// all the time has a component per block version and field, and few of them are kept.
struct MergedKeys {
  std::vector<LocationInfo> kept;            // by LocationId
  std::vector<EventIndex> kept_last;         // by LocationId: the last access, or FREE of it
  std::vector<EventIndex> kept_last_access;  // by LocationId: the last access
  // (FREE, kept location its block overlaps), in trace order of the FREEs.
  std::vector<std::pair<EventIndex, LocationId>> frees;
  uint64_t all_locations = 0;  // components, kept or not

  // Sets each key's location.
  MergedKeys(KeyTable& keys, const FreeTable& frees, const LocationFilter& filter);
};

MergedKeys::MergedKeys(KeyTable& keys, const FreeTable& free_events, const LocationFilter& filter) {
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  SortByVersionAndBegin(order.data(), order.data() + order.size(),
                        [&](uint32_t k) -> const KeyInfo& { return keys[k]; });
  // Each FREE under the two versions it borders (the one it ends and the one it starts).
  std::vector<std::pair<uint32_t, uint32_t>> by_version;  // (version, FREE), FREEs in order
  by_version.reserve(2 * free_events.size());
  for (uint32_t f = 0; f < free_events.size(); ++f) {
    by_version.emplace_back(free_events[f].ended_version, f);
    by_version.emplace_back(free_events[f].started_version, f);
  }
  std::sort(by_version.begin(), by_version.end());

  // One component at a time: a version's keys by first byte extend the last component or start
  // the next, so only the one at hand is held (a version of millions of bytes a program touched
  // one at a time has millions). Its FREEs are swept alongside, by first byte.
  struct Component {
    LocationInfo info;
    ThreadId first_thread;
    EventIndex last;         // the last access, or FREE of its bytes
    EventIndex last_access;  // the last access
  };
  // The version's entries of by_version, by the FREE's first byte; those of them that overlap the
  // component at hand.
  std::vector<uint32_t> version_frees;
  std::vector<uint32_t> active;
  size_t next_free = 0;
  for (size_t first = 0; first < order.size();) {
    const uint32_t version = keys[order[first]].version;
    size_t end_of_version = first;
    while (end_of_version < order.size() && keys[order[end_of_version]].version == version)
      ++end_of_version;
    // The FREEs bordering this version (the one they end and the one they start).
    while (next_free < by_version.size() && by_version[next_free].first < version) ++next_free;
    size_t end_of_frees = next_free;
    while (end_of_frees < by_version.size() && by_version[end_of_frees].first == version)
      ++end_of_frees;
    version_frees.clear();
    for (size_t at = next_free; at < end_of_frees; ++at)
      version_frees.push_back(static_cast<uint32_t>(at));
    std::stable_sort(version_frees.begin(), version_frees.end(), [&](uint32_t a, uint32_t b) {
      return free_events[by_version[a].second].begin < free_events[by_version[b].second].begin;
    });
    active.clear();
    size_t next_started = 0;  // in version_frees
    // The component of keys order[from, to) is whole: the FREEs overlapping it, the filter, and
    // its keys' location.
    auto finish = [&](Component& c, size_t from, size_t to) {
      while (next_started < version_frees.size() &&
             free_events[by_version[version_frees[next_started]].second].begin < c.info.end)
        active.push_back(version_frees[next_started++]);
      // A FREE that ends before this component begins ends before every later one begins.
      std::erase_if(active, [&](uint32_t at) {
        return free_events[by_version[at].second].end <= c.info.begin;
      });
      for (uint32_t at : active) {
        const FreeEvent& f = free_events[by_version[at].second];
        c.info.written = true;
        c.info.shared |= f.thread != c.first_thread;
        c.last = std::max(c.last, f.event);
      }
      ++all_locations;
      const LocationId l =
          filter.Keeps(c.info) ? static_cast<LocationId>(kept.size()) : kNoLocation;
      for (size_t k = from; k < to; ++k) keys[order[k]].location = l;
      if (l == kNoLocation) return;
      kept.push_back(c.info);
      kept_last.push_back(c.last);
      kept_last_access.push_back(c.last_access);
      for (uint32_t at : active) frees.emplace_back(free_events[by_version[at].second].event, l);
    };
    Component c{};
    size_t component_first = first;
    for (size_t k = first; k < end_of_version; ++k) {
      const KeyInfo& key = keys[order[k]];
      if (k == first || key.begin >= c.info.end) {
        if (k != first) finish(c, component_first, k);
        LocationInfo info{key.begin, key.end(), key.version};
        info.shared = key.many_threads;
        info.written = key.written;
        info.read = key.read;
        c = Component{info, key.first_thread, key.last, key.last};
        component_first = k;
      } else {
        // A second key: a different byte range (keys of one version are distinct ranges).
        c.info.end = std::max(c.info.end, key.end());
        c.info.single_range = false;
        c.info.shared |= key.many_threads || key.first_thread != c.first_thread;
        c.info.written |= key.written;
        c.info.read |= key.read;
        c.last = std::max(c.last, key.last);
        c.last_access = std::max(c.last_access, key.last);
      }
    }
    finish(c, component_first, end_of_version);
    next_free = end_of_frees;
    first = end_of_version;
  }
  // A FREE's locations: those of the version it ends (processed first), then of the one it
  // starts, each by first byte.
  std::stable_sort(frees.begin(), frees.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

}  // namespace

bool LocationFilter::Keeps(const LocationInfo& info) const {
  return std::any_of(needs.begin(), needs.end(), [&](const LocationNeed& need) {
    return (!need.shared || info.shared) && (!need.written || info.written) &&
           (!need.read || info.read);
  });
}

struct LocationTable::Impl {
  std::vector<LocationId> of;
  std::vector<LocationInfo> info;
  std::vector<uint64_t> offsets;  // CSR into accesses
  std::vector<EventIndex> accesses;
  std::vector<uint64_t> free_offsets;  // CSR into frees
  std::vector<EventIndex> frees;
  uint64_t all_locations = 0;
};

LocationTable::LocationTable(const Trace& trace, const LocationFilter& filter)
    : impl_(std::make_unique<Impl>()) {
  const size_t n = trace.size_events();
  std::vector<uint32_t> key_of(n, AccessKeyer::kNoKey);
  AccessKeyer keyer;
  for (EventIndex i = 0; i < n; ++i)
    key_of[i] = keyer.Add(i, trace.thread[i], trace.kind[i], trace.addr[i], trace.size[i]);
  KeyTable keys = keyer.TakeKeys();
  MergedKeys merged(keys, keyer.frees(), filter);
  impl_->all_locations = merged.all_locations;
  impl_->info = std::move(merged.kept);

  impl_->of.assign(n, kNoLocation);
  std::vector<uint64_t> counts(impl_->info.size() + 1, 0);
  for (EventIndex i = 0; i < n; ++i) {
    if (key_of[i] == AccessKeyer::kNoKey) continue;
    const LocationId l = keys[key_of[i]].location;
    impl_->of[i] = l;
    if (l != kNoLocation) ++counts[l + 1];
  }
  std::partial_sum(counts.begin(), counts.end(), counts.begin());
  impl_->offsets = counts;
  impl_->accesses.resize(counts.back());
  std::vector<uint64_t> fill(counts.begin(), counts.end() - 1);
  for (EventIndex i = 0; i < n; ++i) {
    const LocationId l = impl_->of[i];
    if (l != kNoLocation) impl_->accesses[fill[l]++] = i;
  }
  of_ = impl_->of.data();

  std::vector<uint64_t> free_counts(impl_->info.size() + 1, 0);
  for (const auto& [event, l] : merged.frees) ++free_counts[l + 1];
  std::partial_sum(free_counts.begin(), free_counts.end(), free_counts.begin());
  impl_->free_offsets = free_counts;
  impl_->frees.resize(free_counts.back());
  std::vector<uint64_t> free_fill(free_counts.begin(), free_counts.end() - 1);
  // merged.frees is in trace order of the FREEs, so each location's list is too.
  for (const auto& [event, l] : merged.frees) impl_->frees[free_fill[l]++] = event;
}

struct KeptAccesses::Impl {
  LocationFilter filter;
  AccessKeyer first;
  std::vector<LocationInfo> locations;  // sorted by (version, begin), disjoint in a version
  std::vector<std::pair<EventIndex, LocationId>> frees;
  std::vector<EventIndex> last_uses;
  std::vector<uint32_t> key_counts;  // per kept location
  std::vector<EventIndex> last_accesses;
  std::vector<uint64_t> last_of_bytes;  // a bit per event (a sorted list took 8 bytes per key)
  uint64_t all_locations = 0;
  // TrackClasses: the locks held (for the classes' lock addresses), the classes seen per key,
  // each key's last new class; after Decide, each kept location's.
  HeldLocks locks;
  StreamIds streams;  // of the accesses of keys followed
  // The classes seen (ClassesSeen: a map of the whole class took 24 bytes a slot). Before it,
  // some seen lately, by hash of (key << 32 | stream): most lookups end there, in an array that
  // fits the cache (4096 of them: 3% less time than 1024 on the shardmap trace).
  ClassesSeen classes_seen;
  std::vector<uint64_t> recent_classes = std::vector<uint64_t>(4096, FlatU64Set::kEmpty);
  std::vector<EventIndex> new_class_by_key;
  // The same, of the new classes that could complete a unit (CompletesNoUnit), for a location
  // only one thread accesses inside regions.
  std::vector<EventIndex> unit_class_by_key;
  std::vector<EventIndex> last_new_classes;
  // Per thread, the threads (below kKnownThreads) whose THREAD_END it knows through the JOINs
  // and FORKs so far; whether each has ended. An access of a thread after its end (a trace no
  // run makes) turns the distinction off.
  // (A FORK or JOIN naming a thread past kMaxFollowedThreads teaches nothing.)
  static constexpr ThreadId kKnownThreads = 64;
  static constexpr uint64_t kMaxFollowedThreads = uint64_t{1} << 20;
  std::vector<uint64_t> known_ended;
  std::vector<uint8_t> ended;
  bool any_ended = false;
  bool access_after_end = false;
  // TrackGuards: per thread, the REGION_BEGIN..REGION_END scopes it is in; each key's guards
  // (a guard not seen yet is kUnset); after Decide, each kept location's.
  static constexpr uint64_t kUnset = ~uint64_t{0};
  struct KeyGuards {
    AccessGuards guards{kUnset, kUnset};
    uint32_t checked_set = ~0u;  // the lock set (HeldLocks) of the access that set them last
    uint32_t region = 0;         // the last OpenRegion::number that listed the key
  };
  std::vector<uint32_t> annotation_depth;
  // Per thread, its open region (NoteGuards's: while it holds a lock or is inside an annotated
  // region): its number (0: none open), whether its lock set changed since it opened, and until
  // then the keys of its region accesses, each once. A change marks them all
  // (AccessGuards::locks_change_in_region), and every key the region accesses after it.
  // (A key that other threads' regions access too can be listed again after each of theirs:
  // the list is made unique when it has doubled, so it holds at most twice the keys.)
  struct OpenRegion {
    uint32_t number = 0;
    uint64_t opened_at = 0;  // its thread's events when it opened (CountThreadEvent)
    bool locks_changed = false;
    std::vector<uint32_t> keys;
    size_t unique_keys = 0;  // keys.size() when last made unique
  };
  std::vector<OpenRegion> open_regions;
  uint32_t regions_opened = 0;
  // Each key's guards. Most keys of a program that walks buffers are only ever accessed holding
  // no lock and outside regions: their guards stay kPlainGuards, and a block of such keys is not
  // allocated.
  static constexpr KeyGuards kPlainGuards{AccessGuards{0, kUnset}, 0, 0};
  SparseBlockTable<KeyGuards> guards_by_key{kPlainGuards};
  std::vector<AccessGuards> guards;
  // The second pass: the allocation versions painted so far, as the first pass had them.
  AllocationVersions versions;
  uint64_t allocation_events = 0;
  // The bytes of the kept locations of every version, merged: [begin, end), sorted.
  std::vector<std::pair<uint64_t, uint64_t>> kept_bytes;
};

KeptAccesses::KeptAccesses(const LocationFilter& filter) : impl_(std::make_unique<Impl>()) {
  impl_->filter = filter;
}

KeptAccesses::~KeptAccesses() = default;

KeptAccesses::ScanNote KeptAccesses::KeyAccess(EventIndex i, const Event& e) {
  static_assert(kNoKey == AccessKeyer::kNoKey);
  ScanNote note;
  note.key = impl_->first.Add(i, e.thread, e.kind, e.addr, e.size);
  if (note.key != kNoKey) {
    const KeyInfo& key = impl_->first.keys()[note.key];
    if (key.many_threads) note.first_thread = key.first_thread;
  }
  return note;
}

void KeptAccesses::FollowAccess(EventIndex i, const Event& e, ScanNote note) {
  Impl& s = *impl_;
  const uint32_t key = note.key;
  if (track_guards_ && key != kNoKey) NoteGuards(key, e);
  if (!track_classes_) return;
  if (s.any_ended && e.thread < s.ended.size() && s.ended[e.thread]) [[unlikely]]
    s.access_after_end = true;
  // Only the classes of a key accessed by two threads are followed: its first such access is a
  // new class (the table has none of the key's yet), at or after every earlier access; a key one
  // thread alone accesses has its last access as bound (Decide).
  if (key != kNoKey && note.first_thread != kOneThread) {
    const uint32_t stream = s.streams.Of({e.thread, e.site, s.locks.Current(e.thread), e.kind});
    const uint64_t seen = uint64_t{key} << 32 | stream;
    uint64_t& recent = s.recent_classes[MixHash(seen) >> 52];
    bool inserted = false;
    if (recent != seen) {
      inserted = s.classes_seen.Insert(key, stream);
      recent = seen;
    }
    if (inserted) {
      if (key >= s.new_class_by_key.size()) {
        s.new_class_by_key.resize(key + 1, 0);
        s.unit_class_by_key.resize(key + 1, 0);
      }
      // The key's first followed class stands for the first thread's classes before it too.
      const bool stands_in = s.new_class_by_key[key] == 0;
      s.new_class_by_key[key] = i;
      if (!CompletesNoUnit(key, e.thread) ||
          (stands_in && !CompletesNoUnit(key, note.first_thread, /*now=*/false)))
        s.unit_class_by_key[key] = i;
    }
  }
}

void KeptAccesses::ScanThreadEvent(const Event& e) {
  Impl& s = *impl_;
  const auto known = [&](ThreadId t) -> uint64_t& {
    if (t >= s.known_ended.size()) {
      s.known_ended.resize(t + 1, 0);
      s.ended.resize(t + 1, 0);
    }
    return s.known_ended[t];
  };
  const ThreadId t = e.thread;
  if (t >= Impl::kMaxFollowedThreads) return;
  if (e.kind == EventKind::kThreadEnd) {
    known(t);
    s.ended[t] = 1;
    s.any_ended = true;
  } else if (e.kind == EventKind::kFork && e.addr < Impl::kMaxFollowedThreads) {
    const uint64_t forker = known(t);
    known(static_cast<ThreadId>(e.addr)) |= forker;  // what the child starts with
  } else if (e.kind == EventKind::kJoin && e.addr < Impl::kMaxFollowedThreads) {
    const auto joined = static_cast<ThreadId>(e.addr);
    const uint64_t of_joined = known(joined);
    // Only a thread that has ended: then the JOIN orders all of its events before the joiner's.
    if (s.ended[joined])
      known(t) |= of_joined | (joined < Impl::kKnownThreads ? uint64_t{1} << joined : 0);
  }
}

// A unit is completed only by a class of another thread whose member can move into the unit's
// window. On a key only one thread accesses inside regions so far (every unit of it is that
// thread's), a class of the thread itself, or (`now`: made now) of one that knows its end, cannot.
bool KeptAccesses::CompletesNoUnit(uint32_t key, ThreadId thread, bool now) const {
  const Impl& s = *impl_;
  if (!track_guards_ || key >= s.guards_by_key.size()) return false;
  const AccessGuards& g = s.guards_by_key[key].guards;
  if (g.region_thread == AccessGuards::kNone || g.region_many_threads) return false;
  const ThreadId a = g.region_thread;
  return a == thread || (now && a < Impl::kKnownThreads && thread < s.known_ended.size() &&
                         (s.known_ended[thread] >> a & 1) != 0);
}

void KeptAccesses::ScanScopeEvent(EventIndex i, const Event& e) {
  Impl& s = *impl_;
  const ThreadId t = e.thread;
  const uint32_t set_before = s.locks.Current(t);
  const bool open_before = set_before != 0 || Annotated(t);
  if (e.kind != EventKind::kRegionBegin && e.kind != EventKind::kRegionEnd) {
    s.locks.Visit(i, e);
  } else {
    // RegionScopes' rule: an end without a begin closes nothing.
    if (t >= s.annotation_depth.size()) s.annotation_depth.resize(t + 1, 0);
    uint32_t& depth = s.annotation_depth[t];
    if (e.kind == EventKind::kRegionBegin) {
      ++depth;
    } else if (depth > 0) {
      --depth;
    }
  }
  if (track_guards_) FollowRegion(t, open_before, set_before);
}

bool KeptAccesses::Annotated(ThreadId t) const {
  const Impl& s = *impl_;
  return t < s.annotation_depth.size() && s.annotation_depth[t] > 0;
}

// After a scope event of thread t: whether it opened a region, closed one, or changed the lock
// set inside one (then the keys accessed in it so far are marked).
void KeptAccesses::FollowRegion(ThreadId t, bool open_before, uint32_t set_before) {
  Impl& s = *impl_;
  const uint32_t set = s.locks.Current(t);
  const bool open = set != 0 || Annotated(t);
  if (t >= s.open_regions.size()) s.open_regions.resize(t + 1);
  Impl::OpenRegion& r = s.open_regions[t];
  if (!open) {
    if (open_before) EndRegion(t);
    r.number = 0;
    r.locks_changed = false;
    r.keys.clear();
    r.unique_keys = 0;
  } else if (!open_before) {
    if (++s.regions_opened == 0) {  // numbers wrapped: no key may keep an old one
      s.guards_by_key.ForEachAllocated([](Impl::KeyGuards& k) { k.region = 0; });
      for (Impl::OpenRegion& other : s.open_regions) other.number = 0;
      s.regions_opened = 1;
    }
    r.number = s.regions_opened;
    r.opened_at = thread_events_[t];
  } else if (set != set_before && !r.locks_changed) {
    r.locks_changed = true;
    for (uint32_t key : r.keys) s.guards_by_key.Mutable(key).guards.locks_change_in_region = true;
    std::vector<uint32_t>().swap(r.keys);
    r.unique_keys = 0;
  }
}

void KeptAccesses::EndRegion(ThreadId t) {
  Impl& s = *impl_;
  const Impl::OpenRegion& r = s.open_regions[t];
  if (thread_events_[t] - r.opened_at <= WindowPrefilter::kSlots) return;
  for (uint32_t key : r.keys) s.guards_by_key.Mutable(key).guards.long_region = true;
}

// An access is inside a region (RegionScopes, RegionMode::kLocks) while its thread holds a lock or
// is inside an annotated region. A key's first access (first region access) takes a lock its
// thread holds in write mode (the outermost) as the guard (region guard); a later one without
// that lock clears it for good.
void KeptAccesses::NoteGuards(uint32_t key, const Event& e) {
  Impl& s = *impl_;
  const ThreadId t = e.thread;
  const uint32_t set = s.locks.Current(t);
  const bool annotated = Annotated(t);
  const bool region = set != 0 || annotated;
  // Keys are numbered in order of first access, and each access comes here: a new key is next.
  // An access holding no lock outside regions leaves a key's guards plain (kPlainGuards: no
  // guard, no region access), and so does a key's first access.
  if (key >= s.guards_by_key.size()) {
    while (key > s.guards_by_key.size()) s.guards_by_key.push_back(Impl::KeyGuards{});  // (never)
    if (!region) {
      s.guards_by_key.push_back_plain();
      return;
    }
    s.guards_by_key.push_back(Impl::KeyGuards{});
  } else if (!region && s.guards_by_key[key].checked_set == 0) {
    return;  // as below: the same (empty) set of locks as the last access, and no region
  }
  Impl::KeyGuards& k = s.guards_by_key.Mutable(key);
  AccessGuards& g = k.guards;
  // The guards depend on the set of locks held alone: the same set as the last access's keeps them.
  if (set != k.checked_set || annotated) {
    const std::vector<HeldLocks::Hold>& holds = s.locks.Holds(t);
    auto follow = [&](uint64_t& guard) {
      if (guard == Impl::kUnset) {
        const auto write = std::find_if(holds.begin(), holds.end(),
                                        [](const HeldLocks::Hold& h) { return !h.read_mode; });
        guard = write == holds.end() ? 0 : write->lock;
      } else if (guard != 0 && std::none_of(holds.begin(), holds.end(), [&](const auto& h) {
                   return h.lock == guard && !h.read_mode;
                 })) {
        guard = 0;
      }
    };
    follow(g.guard);
    if (region) follow(g.region_guard);
    k.checked_set = set;
  }
  if (!region) return;
  if (g.region_thread == AccessGuards::kNone) {
    g.region_thread = t;
  } else if (t != g.region_thread) {
    g.region_many_threads = true;
  }
  if (t >= s.open_regions.size()) s.open_regions.resize(t + 1);
  Impl::OpenRegion& r = s.open_regions[t];
  if (r.locks_changed) {
    g.locks_change_in_region = true;
  } else if (k.region != r.number || r.number == 0) {
    k.region = r.number;
    r.keys.push_back(key);
    if (r.keys.size() >= 2 * std::max<size_t>(r.unique_keys, 1024)) {
      std::sort(r.keys.begin(), r.keys.end());
      r.keys.erase(std::unique(r.keys.begin(), r.keys.end()), r.keys.end());
      r.unique_keys = r.keys.size();
    }
  }
}

void KeptAccesses::TrackClasses() {
  track_classes_ = true;
  follow_scopes_ = true;
}

void KeptAccesses::TrackGuards() {
  track_guards_ = true;
  follow_scopes_ = true;
}

void KeptAccesses::Decide() {
  // The classes seen go before the merge: only each key's last new one is still needed.
  impl_->classes_seen = ClassesSeen();
  std::vector<uint64_t>().swap(impl_->recent_classes);
  impl_->streams = StreamIds();
  KeyTable keys = impl_->first.TakeKeys();
  const FreeTable frees = impl_->first.TakeFrees();
  impl_->first = AccessKeyer();  // its table of ranges goes before the merge
  ReturnFreedHeap();
  MergedKeys merged(keys, frees, impl_->filter);
  impl_->frees = std::move(merged.frees);
  impl_->last_uses = std::move(merged.kept_last);
  impl_->last_accesses = std::move(merged.kept_last_access);
  EventIndex latest = 0;
  for (size_t k = 0; k < keys.size(); ++k) latest = std::max(latest, keys[k].last);
  impl_->last_of_bytes.assign(keys.size() == 0 ? 0 : latest / 64 + 1, 0);
  impl_->key_counts.assign(merged.kept.size(), 0);
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k].location == kNoLocation) continue;
    impl_->last_of_bytes[keys[k].last / 64] |= uint64_t{1} << (keys[k].last % 64);
    ++impl_->key_counts[keys[k].location];
  }
  impl_->all_locations = merged.all_locations;
  if (track_guards_) {
    // The regions still open at the trace's end last until then.
    for (ThreadId t = 0; t < impl_->open_regions.size(); ++t) {
      if (impl_->locks.Current(t) != 0 || Annotated(t)) EndRegion(t);
    }
    // A location's keys together: their region threads, and a guard if they all have the same.
    std::vector<AccessGuards>& of = impl_->guards;
    of.assign(merged.kept.size(), AccessGuards{Impl::kUnset, Impl::kUnset});
    auto merge = [](uint64_t& into, uint64_t guard) {
      if (into == Impl::kUnset) {
        into = guard;
      } else if (guard != Impl::kUnset && guard != into) {
        into = 0;
      }
    };
    for (size_t k = 0; k < keys.size(); ++k) {
      const LocationId l = keys[k].location;
      if (l == kNoLocation) continue;
      AccessGuards& g = of[l];
      if (k >= impl_->guards_by_key.size()) {  // a key with no access noted (cannot happen)
        g.guard = 0;
        continue;
      }
      const AccessGuards& key = impl_->guards_by_key[k].guards;
      merge(g.guard, key.guard);
      merge(g.region_guard, key.region_guard);
      if (key.region_thread == AccessGuards::kNone) continue;
      if (g.region_thread == AccessGuards::kNone) {
        g.region_thread = key.region_thread;
      } else if (key.region_thread != g.region_thread) {
        g.region_many_threads = true;
      }
      g.region_many_threads |= key.region_many_threads;
      g.locks_change_in_region |= key.locks_change_in_region;
      g.long_region |= key.long_region;
    }
    for (AccessGuards& g : of) {
      if (g.guard == Impl::kUnset) g.guard = 0;
      if (g.region_guard == Impl::kUnset) g.region_guard = 0;
    }
    impl_->guards_by_key = SparseBlockTable<Impl::KeyGuards>(Impl::kPlainGuards);
    std::vector<uint32_t>().swap(impl_->annotation_depth);
    std::vector<Impl::OpenRegion>().swap(impl_->open_regions);
  }
  if (track_classes_) {
    // A class of a location is one of a key of it (a key fixes the bytes): the last new one of
    // its keys' is at or after its last new class. A key one thread alone accessed was not
    // followed (Scan): its last access stands for it. On a location one thread alone accesses
    // inside regions (every unit is that thread's), only the classes that could complete a unit
    // count (CompletesNoUnit) — unless a thread accessed after its end.
    impl_->last_new_classes.assign(merged.kept.size(), 0);
    const bool distinguish = track_guards_ && !impl_->access_after_end;
    for (size_t k = 0; k < keys.size(); ++k) {
      const LocationId l = keys[k].location;
      if (l == kNoLocation) continue;
      const bool followed = keys[k].many_threads && k < impl_->new_class_by_key.size();
      const bool one_region_thread = distinguish && !impl_->guards[l].region_many_threads;
      const EventIndex last_new = !followed           ? keys[k].last
                                  : one_region_thread ? impl_->unit_class_by_key[k]
                                                      : impl_->new_class_by_key[k];
      impl_->last_new_classes[l] = std::max(impl_->last_new_classes[l], last_new);
    }
    std::vector<EventIndex>().swap(impl_->new_class_by_key);
    std::vector<EventIndex>().swap(impl_->unit_class_by_key);
    std::vector<uint64_t>().swap(impl_->known_ended);
    std::vector<uint8_t>().swap(impl_->ended);
  }
  impl_->locations = std::move(merged.kept);
  std::vector<std::pair<uint64_t, uint64_t>>& bytes = impl_->kept_bytes;
  for (const LocationInfo& l : impl_->locations) bytes.emplace_back(l.begin, l.end);
  std::sort(bytes.begin(), bytes.end());
  size_t merged_ranges = 0;
  for (const auto& [begin, end] : bytes) {
    if (merged_ranges > 0 && begin <= bytes[merged_ranges - 1].second) {
      bytes[merged_ranges - 1].second = std::max(bytes[merged_ranges - 1].second, end);
    } else {
      bytes[merged_ranges++] = {begin, end};
    }
  }
  bytes.resize(merged_ranges);
}

const std::vector<EventIndex>& KeptAccesses::LastNewClasses() const {
  return impl_->last_new_classes;
}

const std::vector<AccessGuards>& KeptAccesses::GuardsOf() const {
  return impl_->guards;
}

bool KeptAccesses::Keeps(EventIndex i, const Event& e) {
  const LocationId l = Locate(i, e);  // also follows FREEs and ALLOCs
  return !IsAccess(e.kind) || l != kNoLocation;
}

void KeptAccesses::Forget(uint64_t begin, uint64_t end) {
  if (end - begin > kForgetBytes) {
    ++epoch_;
    return;
  }
  for (uint64_t word = begin >> 3; word <= (end - 1) >> 3; ++word) {
    Located& known = located_[LocatedSlot(word << 3)];
    if (known.first >> 3 == word) known.bytes = 0;
  }
}

// An access lies inside the location of its (address, size, version) key: locations of one
// version are disjoint ranges, so the address and the version in force there find it, and the
// second pass needs no table of keys.
LocationId KeptAccesses::LocateMissed(EventIndex, const Event& e) {
  Impl& s = *impl_;
  if (e.kind == EventKind::kFree || e.kind == EventKind::kAlloc) {  // as AccessKeyer::Add
    ++s.allocation_events;
    const uint64_t end = e.addr + std::max<uint32_t>(e.size, 1);
    s.versions.Paint(e.addr, end, static_cast<uint32_t>(s.allocation_events));
    Forget(e.addr, end);
    return kNoLocation;
  }
  if (!IsAccess(e.kind)) return kNoLocation;
  Located& known = located_[LocatedSlot(e.addr)];
  // The answer is kept for the bytes of the address's word that have the same one, so that a
  // buffer walked a byte at a time finds 7 of every 8 among the recent answers.
  const uint64_t word = e.addr & ~uint64_t{7};
  auto keep = [&](uint64_t lo, uint64_t hi, uint64_t epoch, LocationId location) {
    lo = std::max(lo, word);
    hi = std::min(hi, word + 8);
    known = Located{lo, epoch, location, static_cast<uint32_t>(hi - lo)};
  };
  const auto bytes = std::upper_bound(
      s.kept_bytes.begin(), s.kept_bytes.end(), e.addr,
      [](uint64_t addr, const std::pair<uint64_t, uint64_t>& r) { return addr < r.first; });
  if (bytes == s.kept_bytes.begin() || e.addr >= std::prev(bytes)->second) {
    // Between kept bytes, whatever the version.
    keep(bytes == s.kept_bytes.begin() ? 0 : std::prev(bytes)->second,
         bytes == s.kept_bytes.end() ? ~uint64_t{0} : bytes->first, kAlways, kNoLocation);
    return kNoLocation;
  }
  uint64_t run_lo = 0;
  uint64_t run_hi = ~uint64_t{0};
  const uint32_t version =
      s.allocation_events == 0 ? 0 : s.versions.VersionRun(e.addr, &run_lo, &run_hi);
  auto after =
      std::upper_bound(s.locations.begin(), s.locations.end(), std::make_pair(version, e.addr),
                       [](const std::pair<uint32_t, uint64_t>& at, const LocationInfo& l) {
                         return at.first != l.version ? at.first < l.version : at.second < l.begin;
                       });
  LocationId found = kNoLocation;
  if (after != s.locations.begin()) {
    const LocationInfo& l = *std::prev(after);
    if (l.version == version && e.addr < l.end) {
      found = static_cast<LocationId>(std::prev(after) - s.locations.begin());
      // The bytes of the location that have its version.
      keep(std::max(l.begin, run_lo), std::min(l.end, run_hi), epoch_, found);
      return found;
    }
  }
  keep(e.addr, e.addr + 1, epoch_, found);
  return found;
}

const std::vector<LocationInfo>& KeptAccesses::Locations() const {
  return impl_->locations;
}

const std::vector<std::pair<EventIndex, LocationId>>& KeptAccesses::Frees() const {
  return impl_->frees;
}

const std::vector<uint32_t>& KeptAccesses::KeyCounts() const {
  return impl_->key_counts;
}

const std::vector<EventIndex>& KeptAccesses::LastUses() const {
  return impl_->last_uses;
}

const std::vector<EventIndex>& KeptAccesses::LastAccesses() const {
  return impl_->last_accesses;
}

bool KeptAccesses::IsLastAccessOfBytes(EventIndex i) const {
  const std::vector<uint64_t>& bits = impl_->last_of_bytes;
  return i / 64 < bits.size() && (bits[i / 64] >> (i % 64) & 1) != 0;
}

uint64_t KeptAccesses::AllLocations() const {
  return impl_->all_locations;
}

LocationTable::~LocationTable() = default;
LocationTable::LocationTable(LocationTable&&) noexcept = default;

size_t LocationTable::Count() const {
  return impl_->info.size();
}
const LocationInfo& LocationTable::Info(LocationId l) const {
  return impl_->info[l];
}
const EventIndex* LocationTable::AccessesBegin(LocationId l) const {
  return impl_->accesses.data() + impl_->offsets[l];
}
const EventIndex* LocationTable::AccessesEnd(LocationId l) const {
  return impl_->accesses.data() + impl_->offsets[l + 1];
}
const EventIndex* LocationTable::FreesBegin(LocationId l) const {
  return impl_->frees.data() + impl_->free_offsets[l];
}
const EventIndex* LocationTable::FreesEnd(LocationId l) const {
  return impl_->frees.data() + impl_->free_offsets[l + 1];
}
uint64_t LocationTable::AllLocations() const {
  return impl_->all_locations;
}
uint64_t LocationTable::SharedAccesses() const {
  return impl_->accesses.size();
}

}  // namespace pecan
