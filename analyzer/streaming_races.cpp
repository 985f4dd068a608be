// The streaming race search: per kept location its access classes (latest member only), its
// last access, its FREEs, and the results the sweep's order needs replayed; per thread its POR
// clock (PorClocks) and held locks (HeldLocks).
#include "analyzer/streaming_races.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "analyzer/access_class_key.h"
#include "analyzer/access_locations.h"
#include "analyzer/access_stream.h"
#include "analyzer/block_vector.h"
#include "analyzer/byte_heads.h"
#include "analyzer/chunk_list_pool.h"
#include "analyzer/class_index.h"
#include "analyzer/flat_hash_map.h"
#include "analyzer/held_locks.h"
#include "analyzer/pattern_search.h"
#include "analyzer/por_clocks.h"

namespace pecan {
namespace {

constexpr EventIndex kNone = ~EventIndex{0};
// Classes of up to this many bytes are found by probing the bytes they could start at.
constexpr uint64_t kSmallClass = 8;

constexpr uint32_t kNil = ChunkListPool::kNil;  // the end of a list of indices
static_assert(ByteHeads::kNil == kNil);
// A small class is found by a walk of this many of its first byte's chain, past them in the index
// (ClassIndex::kListed or more, so that the index has a table by then).
constexpr uint32_t kChainWalk = 8;
static_assert(kChainWalk >= ClassIndex::kListed);
// A location's pair groups are found by a walk up to this many, past them in a table.
constexpr size_t kListedGroups = 8;
// A location's first sweep of the pairs that never resolve comes at this many (SweepDead).
constexpr size_t kFirstSweep = 16;
// A location with this many classes follows its threads' last accesses (LocationState).
constexpr size_t kFollowThreadsPast = 16;

// An access class (analysis_context.h): one thread's accesses to one location at one site, of
// one kind, under one set of lock addresses (and, on a location whose accesses differ in byte
// range, to the same bytes). Only its latest member is kept. 28 bytes: there is one per thread,
// site and byte of a buffer that threads walk a byte at a time, so its thread, site, kind and
// lock set are a stream's number (GroupSearch's StreamIds: 48 bytes with them), its first byte
// is an offset in its location (LocationState::Begin), and a small class's size and chain share
// words with its latest member and another class's size.
// Access reads and writes the fields up to `stream` for every access of the class, and reads them
// for its partners: they come first, so that they seldom straddle two cache lines.
struct RaceClass {
  // 58 bits: decoding 2^58 events would take centuries.
  static constexpr EventIndex kNoMember = (EventIndex{1} << 58) - 1;
  // The latest member (kNoMember: none yet): the location's FREEs after it are paired with the
  // next member. In two words, so that the record needs 4-byte alignment only.
  uint32_t latest_low = static_cast<uint32_t>(kNoMember);
  uint32_t latest_high : 26 = static_cast<uint32_t>(kNoMember >> 32);
  // No later access touches the class's bytes (its latest member was the last access to them):
  // it gets no more members, so pairs waiting for its next member never resolve.
  uint32_t complete : 1 = 0;
  // A small class (in a chain of its first byte): its bytes, 1 to kSmallClass; 0 for another.
  uint32_t small_size : 4 = 0;
  // A small class made when its chain already held kChainWalk classes or more: every class of the
  // chain is in the index since, so a lookup that finds it at the head goes there without a walk.
  uint32_t chain_indexed : 1 = 0;
  uint32_t latest_local = 0;
  uint32_t partners = kNil;  // list (LocationState::partners) of the classes A of the pairs
                             // (A, this) not resolved yet
  uint32_t stream = 0;       // its thread, site, kind and lock set
  // A small class: the next small class starting at the same byte (next_same_begin); another:
  // its bytes.
  uint32_t size_or_next = kNil;
  // Its first byte's offset from the location's first (LocationState::base); on a location
  // wider than 4 GiB, LocationState::wide_begins holds the byte.
  uint32_t offset = 0;

  // A new class of key `key`, whose stream is `stream`, with no member yet, `offset` bytes into
  // its location; `small`: of up to kSmallClass bytes, in a chain of its first byte.
  static RaceClass Of(const AccessClassKey& key, uint32_t stream, uint32_t offset, bool small) {
    RaceClass c;
    c.stream = stream;
    const auto size = static_cast<uint32_t>(key.end - key.begin);
    if (small) {
      c.small_size = size;
    } else {
      c.size_or_next = size;
    }
    c.offset = offset;
    return c;
  }
  EventIndex latest() const { return EventIndex{latest_high} << 32 | latest_low; }
  void set_latest(EventIndex i) {
    latest_low = static_cast<uint32_t>(i);
    latest_high = static_cast<uint32_t>(i >> 32);
  }
  uint32_t size() const { return small_size != 0 ? small_size : size_or_next; }
  // A small class's next small class starting at the same byte (kNil: none).
  uint32_t next_same_begin() const { return size_or_next; }
  void set_next_same_begin(uint32_t next) { size_or_next = next; }
  // Whether the class, whose first byte is `begin`, is key `key`'s, given its stream's fields.
  bool Has(uint64_t begin, const AccessClassKey& key, const AccessStream& fields) const {
    return begin == key.begin && begin + size() == key.end && fields.thread == key.thread &&
           fields.site == key.site && fields.kind == key.kind && fields.lockset == key.lockset;
  }
};
static_assert(kSmallClass < 16);  // a small class's size fits RaceClass::small_size
static_assert(sizeof(RaceClass) == 28);

struct FreeRecord {
  EventIndex event = 0;
  SiteId site = 0;
  ThreadId thread = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
  uint32_t lockset = 0;
  uint32_t local = 0;
  uint64_t accesses_before = 0;  // the location's accesses before it
};

// A FREE (the location's `free`-th) against class `cls`: its last member before the FREE
// (after == 0) or its first member after it (after == 1).
struct FreeResult {
  uint32_t free = 0;
  uint32_t cls = 0;
  uint8_t after = 0;
  EventIndex first = 0;
  EventIndex second = 0;
  bool observed = false;
  uint32_t mask = 0;
};

// Back-to-back pairs of the location with the same sites and patterns: the first (the best
// witness of them all) and how many.
struct ObservedEntry {
  SiteId first_site = 0;
  SiteId second_site = 0;
  uint32_t mask = 0;
  EventIndex a = 0;
  EventIndex b = 0;
  uint64_t count = 0;
};

// A result of a location whose life ended, in the order of the sweep, with what the replay
// needs of its classes: their sites and the patterns the two kinds match.
struct DoneResult {
  EventIndex first = 0;
  EventIndex second = 0;
  SiteId first_site = 0;
  SiteId second_site = 0;
  uint32_t mask = 0;
  bool observed = false;
};

// The pairs of classes (A, B) of a location with a witness — the earliest b of B with an earlier a
// of A not ordered before it, and the latest such a — that have the same sites and patterns:
// the best of their witnesses and how many. The sweep records each pair's witness, in order of
// (A, B), after the location's back-to-back pairs; here each group is recorded once, in order of
// its first pair, with the same outcome. An observed witness of a pair is a back-to-back pair of
// the trace, recorded before, so the patterns with an observed witness of some sites stay the
// same while the sweep is on the pairs; and of a site tuple's records, only the first may be
// capped (TakeSiteShares) or not: the group's first pair's.
struct PairGroup {
  uint64_t first = 0;  // its first pair in the sweep's order: A << 32 | B
  DoneResult best;
  uint64_t count = 0;
  uint32_t next_same_sites = kNil;  // the location's next group of the same two sites
};

// A thread's last access to a location: its POR position (PorStep::local), and its class.
struct ThreadLast {
  ThreadId thread = 0;
  uint32_t local = 0;
  uint32_t cls = kNil;
};

// Classes of one side of one location by first byte: classes of up to kSmallClass bytes in
// chains by first byte (a query probes the bytes they could start at), and bigger ones by size
// bucket (bucket k: up to 2^k bytes, more than 2^(k-1)), so a query scans only the first bytes a
// class of the bucket could reach from.
struct ClassesByBegin {
  std::unique_ptr<ByteHeads> small;
  // The most bytes a small class has: a query probes only the bytes one could reach it from (a
  // buffer read a byte at a time has only classes of one byte).
  uint32_t widest_small = 0;
  std::vector<std::multimap<uint64_t, uint32_t>> by_size;
};

struct LocationState {
  // By number, in order of first access. In blocks of up to 2048 (64 KiB, as the partners'
  // chunks): with blocks of 4096, pcompress 1 MiB peaked 3-4 MB higher (each location of many
  // classes leaves half a block unused on average, and a block of 128 KiB is past malloc's first
  // threshold for a mapping of its own).
  BlockVector<RaceClass, 3, 11> classes;
  // The location's first byte (RaceClass::offset counts from it), and on a location wider than
  // 4 GiB, where an offset may not fit, each class's first byte.
  uint64_t base = 0;
  std::unique_ptr<std::vector<uint64_t>> wide_begins;
  ClassIndex index;        // the classes by key, until the location's last access
  ChunkListPool partners;  // the classes' lists of partners, until its last access
  std::vector<FreeRecord> frees;
  EventIndex last = kNone;  // the last access
  ThreadId last_thread = 0;
  EventKind last_kind = EventKind::kUnspecified;
  uint64_t last_addr = 0;
  uint32_t last_size = 0;
  uint32_t last_lockset = 0;
  uint32_t last_local = 0;
  SiteId last_site = 0;
  uint64_t accesses = 0;
  // Classes by first byte, on a location whose accesses differ in byte range, apart by side
  // (GroupSearch::loud_): the quiet classes (0) and the loud ones (1).
  ClassesByBegin by_begin[2];
  // Once the location has kFollowThreadsPast classes: each thread's last access to it. Where
  // every other thread's is ordered before an access b, so is every class's latest member, and
  // no pair waiting for b resolves.
  std::unique_ptr<std::vector<ThreadLast>> thread_last;
  std::vector<ObservedEntry> observed;
  std::vector<PairGroup> pair_groups;
  // The first group of each pair of sites (first site << 32 | second), once there are more
  // than kListedGroups (a lookup walks the list before).
  std::unique_ptr<FlatHashMap<uint64_t, uint32_t, U64Hash>> groups_by_sites;
  std::vector<FreeResult> free_results;
  // Once the location's last access ran (Seal): its pair groups in the sweep's order, and its
  // classes no longer searched for pairs; once its life ended (Retire): its FREE results too.
  bool sealed = false;
  bool retired = false;
  std::vector<DoneResult> done_frees;
  // The room held (ChunkListPool::held) at which the next SweepDead comes.
  size_t sweep_at = kFirstSweep;
};

// Class c's first byte, of location s.
uint64_t Begin(const LocationState& s, uint32_t c) {
  return s.wide_begins ? (*s.wide_begins)[c] : s.base + s.classes[c].offset;
}
uint64_t End(const LocationState& s, uint32_t c) {
  return Begin(s, c) + s.classes[c].size();
}

struct SiteTupleHash {
  size_t operator()(const std::pair<SiteId, SiteId>& s) const {
    return std::hash<uint64_t>()(uint64_t{s.first} << 32 | s.second);
  }
};

// Whether pair result a is a better witness than b (BetterWitness).
bool DoneBetter(const DoneResult& a, const DoneResult& b) {
  const EventIndex a_last = std::max(a.first, a.second);
  const EventIndex b_last = std::max(b.first, b.second);
  return BetterWitness(a.observed, a_last, a_last - std::min(a.first, a.second), b.observed, b_last,
                       b_last - std::min(b.first, b.second));
}

// The best witness of one site tuple of one pattern (pattern_search.cpp's Candidate).
struct Best {
  EventIndex first = 0;
  EventIndex second = 0;
  bool observed = false;
  uint64_t witnesses = 0;
  bool BetterThan(bool other_observed, EventIndex other_first, EventIndex other_second) const {
    const EventIndex last = std::max(first, second);
    const EventIndex other_last = std::max(other_first, other_second);
    return BetterWitness(observed, last, last - std::min(first, second), other_observed, other_last,
                         other_last - std::min(other_first, other_second));
  }
};

// One group of race-shaped patterns, fed the kept events.
class GroupSearch {
 public:
  GroupSearch(const std::vector<const Pattern*>& group, size_t location_count,
              const std::vector<uint8_t>& guarded, HeldLocks* locks, uint32_t max_per_site,
              const std::vector<uint8_t>* owner, uint8_t shard)
      : group_(group),
        guarded_(guarded),
        locks_(locks),
        max_per_site_(max_per_site),
        masks_(group),
        loud_(LoudKinds(masks_)),
        best_(group.size()),
        site_shares_(group.size()) {
    assert(guarded.size() == location_count);
    if (!owner) {
      locations_.resize(location_count);
      return;
    }
    slot_.assign(location_count, kNoSlot);
    uint32_t owned = 0;
    for (LocationId l = 0; l < location_count; ++l)
      if ((*owner)[l] == shard) slot_[l] = owned++;
    locations_.resize(owned);
  }

  // Access `i` of kept location `l`, which LocationInfo `info` describes. `lockset` and `step`
  // are the thread's held locks and POR position at it.
  void Access(EventIndex i, const Event& e, LocationId l, const LocationInfo& info,
              AccessClassLookup& cls, uint32_t lockset, uint32_t local, bool last_of_bytes,
              const PorClocks& por) {
    HeldLocks& locks = *locks_;
    LocationState& s = State(l);
    const bool single = info.single_range;
    const uint32_t size = std::max<uint32_t>(e.size, 1);
    // A back-to-back pair of the trace.
    if (s.last != kNone && s.last_thread != e.thread) {
      const uint32_t mask = RaceMask(s.last_kind, e.kind);
      if (mask != 0 &&
          (single || (s.last_addr < e.addr + size && e.addr < s.last_addr + s.last_size))) {
        ++candidates_;
        if (!locks.Exclusive(s.last_lockset, lockset) &&
            !por.OrderedBeforeCurrent(s.last_thread, s.last_local, e.thread)) {
          AddObserved(s, s.last_site, e.site, mask, s.last, i);
        }
      }
    }
    // Where every access holds the guard (and no FREE comes), every class pair is excluded
    // (ClassOf's links): there is nothing more to follow than the back-to-back pairs.
    if (guarded_[l]) {
      NoteLast(s, i, e, size, lockset, local);
      return;
    }
    bool created = false;
    const uint32_t b_class = ClassOf(s, info, i, cls.key(), last_of_bytes, por, &created);
    cls.Provide(b_class, created);
    if (s.partners.held() >= s.sweep_at) SweepDead(s, por);
    RaceClass& B = s.classes[b_class];
    // Pairs (A, B) not resolved yet: the latest a of A is the least ordered before this b. If
    // it is, and A gets no more members, it is ordered before every later b too (they follow
    // this one in B's thread): the pair never resolves, and its place is reused.
    // (A new class's pairs were settled against this access as they were made: ClassOf.)
    if (!created && B.partners != kNil && MayFollowOther(s, e.thread, por)) {
      s.partners.Filter(&B.partners, [&](uint32_t a_class) {
        const RaceClass& A = s.classes[a_class];
        if (por.OrderedBeforeCurrent(streams_[A.stream].thread, A.latest_local, e.thread))
          return !A.complete;
        AddPairWitness(s, a_class, b_class, A, B, i);
        return false;
      });
    }
    // FREEs since B's previous member (all of the location's before its first): this b is B's
    // first member after them.
    size_t first_free = s.frees.size();
    while (first_free > 0 &&
           (B.latest() == RaceClass::kNoMember || s.frees[first_free - 1].event > B.latest()))
      --first_free;
    for (size_t f = first_free; f < s.frees.size(); ++f) {
      const FreeRecord& F = s.frees[f];
      if (F.thread == e.thread || End(s, b_class) <= F.begin || F.end <= Begin(s, b_class))
        continue;
      if (locks.Exclusive(F.lockset, lockset)) continue;
      const uint32_t mask = RaceMask(EventKind::kFree, e.kind);
      if (mask != 0 && !por.OrderedBeforeCurrent(F.thread, F.local, e.thread)) {
        s.free_results.push_back(FreeResult{static_cast<uint32_t>(f), b_class, 1, F.event, i,
                                            s.accesses == F.accesses_before, mask});
      }
    }
    if (last_of_bytes) {
      // Its pairs still waiting never resolve: their places are reused.
      B.complete = true;
      s.partners.Clear(&B.partners);
    }
    B.set_latest(i);
    B.latest_local = local;
    if (s.thread_last) {
      NoteThreadLast(*s.thread_last, e.thread, local, b_class);
    } else if (s.classes.size() >= kFollowThreadsPast) {
      // Starts following each thread's last access to the location: its classes' latest.
      s.thread_last = std::make_unique<std::vector<ThreadLast>>();
      for (uint32_t c = 0; c < s.classes.size(); ++c)
        NoteThreadLast(*s.thread_last, streams_[s.classes[c].stream].thread,
                       s.classes[c].latest_local, c);
    }
    NoteLast(s, i, e, size, lockset, local);
  }

  // Asks the cache for location l's record: the first miss of an access to it (its last access
  // and its classes' blocks), where a program has thousands of locations. (Inline always, as
  // ChunkListPool::Prefetch.)
  __attribute__((always_inline)) void Prefetch(LocationId l) const {
    if (!slot_.empty() && slot_[l] == kNoSlot) return;
    const LocationState& s = locations_[slot_.empty() ? l : slot_[l]];
    __builtin_prefetch(&s.last);
    __builtin_prefetch(&s.classes);
  }

  // Drops every pair (A, B) waiting for B's next member that never resolves: A gets no more
  // members, and its latest is ordered before B's thread's event just fed (so before every later
  // one). B's next member would drop it (Access), but a class may get no more members while its
  // bytes are still in use: a buffer's readers leave a pair with each class of its writer. The
  // sweep comes when the room held in the location's lists (and in cleared lists not yet reused)
  // reaches sweep_at: then at least half as many values as its classes, or as there was room,
  // more, so that it costs O(1) a value.
  void SweepDead(LocationState& s, const PorClocks& por) {
    for (uint32_t b = 0; b < s.classes.size(); ++b) {
      RaceClass& B = s.classes[b];
      if (B.partners == kNil) continue;
      const ThreadId b_thread = streams_[B.stream].thread;
      s.partners.Filter(&B.partners, [&](uint32_t a_class) {
        const RaceClass& A = s.classes[a_class];
        return !A.complete ||
               !por.OrderedBeforeCurrent(streams_[A.stream].thread, A.latest_local, b_thread);
      });
    }
    const size_t held = s.partners.held();
    s.sweep_at = held + std::max({kFirstSweep, held, s.classes.size() / 2});
  }

  // Whether some access of another thread than `t` to location s may not be ordered before the
  // event just fed: else every pair (A, B) waiting for this b stays unresolved.
  static bool MayFollowOther(const LocationState& s, ThreadId t, const PorClocks& por) {
    if (!s.thread_last) return true;
    for (const ThreadLast& last : *s.thread_last)
      if (last.thread != t && !por.OrderedBeforeCurrent(last.thread, last.local, t)) return true;
    return false;
  }

  // Thread `t` accessed the location at POR position `local`, an access of class `cls`.
  static void NoteThreadLast(std::vector<ThreadLast>& lasts, ThreadId t, uint32_t local,
                             uint32_t cls) {
    for (ThreadLast& last : lasts) {
      if (last.thread == t) {
        last.local = std::max(last.local, local);
        last.cls = cls;
        return;
      }
    }
    lasts.push_back(ThreadLast{t, local, cls});
  }

  // Access `i` is location s's last so far.
  static void NoteLast(LocationState& s, EventIndex i, const Event& e, uint32_t size,
                       uint32_t lockset, uint32_t local) {
    s.last = i;
    s.last_thread = e.thread;
    s.last_kind = e.kind;
    s.last_addr = e.addr;
    s.last_size = size;
    s.last_lockset = lockset;
    s.last_local = local;
    s.last_site = e.site;
    ++s.accesses;
  }

  // FREE `i` of a block overlapping kept location `l`: against each class's latest member.
  void Free(EventIndex i, const Event& e, LocationId l, uint32_t lockset, uint32_t local,
            const PorClocks& por) {
    HeldLocks& locks = *locks_;
    LocationState& s = State(l);
    const FreeRecord F{i,       e.site, e.thread,  e.addr, e.addr + std::max<uint32_t>(e.size, 1),
                       lockset, local,  s.accesses};
    const auto f = static_cast<uint32_t>(s.frees.size());
    s.frees.push_back(F);
    for (uint32_t c = 0; c < s.classes.size(); ++c) {
      const RaceClass& B = s.classes[c];
      const AccessStream& b = streams_[B.stream];
      if (b.thread == F.thread || End(s, c) <= F.begin || F.end <= Begin(s, c)) continue;
      if (locks.Exclusive(F.lockset, b.lockset)) continue;
      const uint32_t mask = RaceMask(b.kind, EventKind::kFree);
      if (mask != 0 && !por.OrderedBeforeCurrent(b.thread, B.latest_local, e.thread))
        s.free_results.push_back(FreeResult{f, c, 0, B.latest(), i, s.last == B.latest(), mask});
    }
  }

  // Location `l` has no access after this event (only FREEs may still come): its pair results
  // are put in the sweep's order, in runs, and what only the pairing needed is freed. The
  // classes stay for the FREEs.
  void Seal(LocationId l) {
    LocationState& s = State(l);
    if (s.sealed) return;
    s.sealed = true;
    std::sort(s.pair_groups.begin(), s.pair_groups.end(),
              [](const PairGroup& x, const PairGroup& y) { return x.first < y.first; });
    s.pair_groups.shrink_to_fit();
    s.groups_by_sites.reset();
    s.index.Clear();
    for (ClassesByBegin& side : s.by_begin) side = ClassesByBegin();
    s.partners = ChunkListPool();
    for (size_t c = 0; c < s.classes.size(); ++c) s.classes[c].partners = kNil;
  }

  // Location `l` is used by no later event: its FREE results are put in the sweep's order with
  // what the replay needs of its classes, and the rest of its state is freed.
  void Retire(LocationId l) {
    Seal(l);
    LocationState& s = State(l);
    if (s.retired) return;
    std::sort(s.free_results.begin(), s.free_results.end(),
              [](const FreeResult& x, const FreeResult& y) {
                return std::tie(x.free, x.cls, x.after) < std::tie(y.free, y.cls, y.after);
              });
    for (const FreeResult& r : s.free_results) {
      const SiteId site = streams_[s.classes[r.cls].stream].site;
      const SiteId free_site = s.frees[r.free].site;
      s.done_frees.push_back(DoneResult{r.first, r.second, r.after ? free_site : site,
                                        r.after ? site : free_site, r.mask, r.observed});
    }
    LocationState done;
    done.sealed = true;
    done.retired = true;
    done.observed = std::move(s.observed);
    done.done_frees = std::move(s.done_frees);
    done.pair_groups = std::move(s.pair_groups);
    done.observed.shrink_to_fit();
    done.done_frees.shrink_to_fit();
    s = std::move(done);
  }

  // Takes the locations `other` follows, a search of another shard's locations of the same group
  // fed the same events (this one a shard's too), retired: their results are then recorded by
  // Finish with this one's, in the order of the locations' numbers.
  void Absorb(GroupSearch& other) {
    assert(!slot_.empty() && !other.slot_.empty());
    for (LocationId l = 0; l < other.slot_.size(); ++l)
      if (other.slot_[l] != kNoSlot) other.Retire(l);
    absorbed_.push_back(Shard{std::move(other.locations_), std::move(other.slot_)});
    candidates_ += other.candidates_;
  }

  // The findings, replaying each location's results in the sweep's order.
  std::vector<Finding> Finish(PatternSearchStats* stats) {
    const size_t count = slot_.empty() ? locations_.size() : slot_.size();
    for (LocationId l = 0; l < count; ++l) {
      LocationState* absorbed = slot_.empty() || slot_[l] != kNoSlot ? nullptr : Absorbed(l);
      if (!absorbed) Retire(l);
      LocationState& s = absorbed ? *absorbed : State(l);
      for (const DoneResult& r : s.done_frees) {
        ++candidates_;
        RecordAll(r.first_site, r.second_site, r.mask, r.first, r.second, r.observed, 1);
      }
      for (const ObservedEntry& o : s.observed)
        RecordAll(o.first_site, o.second_site, o.mask, o.a, o.b, true, o.count);
      for (const PairGroup& group : s.pair_groups) {
        const DoneResult& r = group.best;
        uint32_t mask = r.mask;
        // Patterns that already have an observed witness for these sites are not swept.
        for (uint32_t bit = 0; bit < group_.size(); ++bit) {
          if (!(mask >> bit & 1)) continue;
          auto known = best_[bit].find({r.first_site, r.second_site});
          if (known != best_[bit].end() && known->second.observed) mask &= ~(1u << bit);
        }
        if (mask != 0)
          RecordAll(r.first_site, r.second_site, mask, r.first, r.second, r.observed, group.count);
      }
      s = LocationState{};
    }
    stats->candidates += candidates_;
    stats->capped += capped_;
    std::vector<Finding> out;
    for (uint32_t bit = 0; bit < group_.size(); ++bit) {
      for (const auto& [sites, best] : best_[bit]) {
        Finding f;
        f.pattern = group_[bit]->name;
        f.variant = group_[bit]->variant;
        f.observed = best.observed;
        f.adjacent = group_[bit]->adjacent;
        f.events = {best.first, best.second};
        f.reason = "no common lock and no happens-before order between the accesses";
        if (best.observed)
          f.reason += "; no other access to this location ran between them in the recorded run";
        f.witnesses = static_cast<uint32_t>(best.witnesses);
        out.push_back(std::move(f));
      }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding& a, const Finding& b) { return a.events < b.events; });
    return out;
  }

 private:
  uint32_t RaceMask(EventKind a, EventKind b) const { return masks_.Race(a, b); }

  // The access kinds' sides (loud_): quiet ones are taken, reads first, while each matches no
  // pattern with itself or with those taken before, in either order.
  static std::array<uint8_t, kEventKindCount> LoudKinds(const KindMasks& masks) {
    std::array<uint8_t, kEventKindCount> loud;
    loud.fill(1);
    std::vector<EventKind> quiet;
    for (EventKind k : {EventKind::kRead, EventKind::kAtomicLoad, EventKind::kWrite,
                        EventKind::kAtomicStore, EventKind::kAtomicRmw}) {
      if (masks.Race(k, k) != 0) continue;
      if (std::any_of(quiet.begin(), quiet.end(),
                      [&](EventKind q) { return masks.Race(k, q) != 0 || masks.Race(q, k) != 0; }))
        continue;
      quiet.push_back(k);
      loud[static_cast<uint8_t>(k)] = 0;
    }
    return loud;
  }

  // Class c's key, of location s.
  AccessClassKey KeyOf(const LocationState& s, uint32_t c) const {
    const AccessStream& stream = streams_[s.classes[c].stream];
    return AccessClassKey{Begin(s, c), End(s, c),   stream.thread,
                          stream.site, stream.kind, stream.lockset};
  }

  void AddObserved(LocationState& s, SiteId first_site, SiteId second_site, uint32_t mask,
                   EventIndex a, EventIndex b) {
    for (ObservedEntry& o : s.observed) {
      if (o.first_site == first_site && o.second_site == second_site && o.mask == mask) {
        ++o.count;
        return;
      }
    }
    s.observed.push_back(ObservedEntry{first_site, second_site, mask, a, b, 1});
  }

  // The pair of classes (A, B) has its witness: b (event `i`, B's access now) and A's latest.
  void AddPairWitness(LocationState& s, uint32_t a_class, uint32_t b_class, const RaceClass& A,
                      const RaceClass& B, EventIndex i) {
    const AccessStream& a = streams_[A.stream];
    const AccessStream& b = streams_[B.stream];
    const DoneResult witness{A.latest(),          i, a.site, b.site, RaceMask(a.kind, b.kind),
                             s.last == A.latest()};
    const uint64_t first = uint64_t{a_class} << 32 | b_class;
    auto merge = [&](PairGroup& group) {
      if (group.best.first_site != a.site || group.best.second_site != b.site ||
          group.best.mask != witness.mask)
        return false;
      if (DoneBetter(witness, group.best)) group.best = witness;
      group.first = std::min(group.first, first);
      ++group.count;
      return true;
    };
    if (s.groups_by_sites) {
      const uint32_t* head = s.groups_by_sites->Find(SitesOf(witness));
      for (uint32_t g = head ? *head : kNil; g != kNil; g = s.pair_groups[g].next_same_sites)
        if (merge(s.pair_groups[g])) return;
      s.pair_groups.push_back(PairGroup{first, witness, 1, kNil});
      IndexGroup(s, static_cast<uint32_t>(s.pair_groups.size() - 1));
      return;
    }
    for (PairGroup& group : s.pair_groups)
      if (merge(group)) return;
    s.pair_groups.push_back(PairGroup{first, witness, 1, kNil});
    if (s.pair_groups.size() > kListedGroups) {
      s.groups_by_sites = std::make_unique<FlatHashMap<uint64_t, uint32_t, U64Hash>>(32);
      for (uint32_t g = 0; g < s.pair_groups.size(); ++g) IndexGroup(s, g);
    }
  }

  // The key of a pair group's sites in LocationState::groups_by_sites.
  static uint64_t SitesOf(const DoneResult& r) {
    return uint64_t{r.first_site} << 32 | r.second_site;
  }

  // Puts pair group `g` at the head of the list of its sites' groups.
  static void IndexGroup(LocationState& s, uint32_t g) {
    PairGroup& group = s.pair_groups[g];
    bool fresh = false;
    uint32_t& head = s.groups_by_sites->FindOrInsert(SitesOf(group.best), kNil, &fresh);
    group.next_same_sites = head;
    head = g;
  }

  // The number of the class of key `key` (an access's), its record created (and paired with the
  // location's classes) on its first access: classes are numbered in order of first access, as
  // the sweep has them (`*created`: it is this access). `last_of_bytes`: no later access has the
  // key, so the index need not.
  uint32_t ClassOf(LocationState& s, const LocationInfo& info, EventIndex i,
                   const AccessClassKey& key, bool last_of_bytes, const PorClocks& por,
                   bool* created) {
    const uint64_t hash = key.Hash();
    const auto id = static_cast<uint32_t>(s.classes.size());
    const bool single = info.single_range;
    const uint64_t begin = key.begin;
    const uint64_t end = key.end;
    // A small class of a location whose accesses differ in byte range is in the chain of its
    // first byte (ClassesByBegin::small), a cache line away on a buffer walked a byte at a time:
    // the index holds it only past the chain's first kChainWalk classes (a shared counter read and
    // written with different sizes has a chain of every thread, site and lock set).
    const bool chained = !single && end - begin <= kSmallClass;
    auto same = [&](uint32_t c) {
      return s.classes[c].Has(Begin(s, c), key, streams_[s.classes[c].stream]);
    };
    // A thread walking a buffer has the classes of its last pass over it, made in the order of
    // its accesses: the next access of a class of its last access (pcompress 1 MiB: 68% of the
    // accesses of a class made before), or of that class (3%), is found there, a cache line away,
    // without a lookup.
    if (s.thread_last) {
      for (const ThreadLast& last : *s.thread_last) {
        if (last.thread != key.thread) continue;
        for (const uint32_t guess : {last.cls + 1, last.cls}) {
          if (guess < id && same(guess)) {
            *created = false;
            return guess;
          }
        }
        break;
      }
    }
    uint32_t found = ClassIndex::kNone;
    // The chain's length, up to kChainWalk + 1 (past kChainWalk: the index holds the rest).
    uint32_t chain_length = 0;
    const uint8_t key_side = loud_[static_cast<uint8_t>(key.kind)];
    ClassesByBegin& own = s.by_begin[key_side];
    if (chained && own.small) {
      const uint32_t head = own.small->At(begin);
      if (head != kNil && s.classes[head].chain_indexed) chain_length = kChainWalk + 1;
      for (uint32_t c = head; c != kNil && chain_length <= kChainWalk;
           c = s.classes[c].next_same_begin()) {
        if (chain_length++ == kChainWalk) break;
        if (same(c)) {
          found = c;
          break;
        }
      }
    }
    if (!chained || chain_length > kChainWalk) found = s.index.Find(id, hash, same);
    *created = found == ClassIndex::kNone;
    if (!*created) return found;
    const uint32_t stream = streams_.Of({key.thread, key.site, key.lockset, key.kind});
    if (id == 0) {
      s.base = info.begin;
      if (info.end - info.begin > uint64_t{UINT32_MAX})
        s.wide_begins = std::make_unique<std::vector<uint64_t>>();
    }
    assert(info.begin <= begin && end <= info.end);
    if (s.wide_begins) s.wide_begins->push_back(begin);
    s.classes.push_back(RaceClass::Of(key, stream, static_cast<uint32_t>(begin - s.base), chained));
    s.index.Add(id, hash, !last_of_bytes && !chained,
                [&](uint32_t c) { return KeyOf(s, c).Hash(); });
    auto add_partner = [&](uint32_t to, uint32_t partner) {
      s.partners.Push(&s.classes[to].partners, partner);
    };
    // The classes Y whose pair (N, Y) waits for Y's next member: N is added to their lists of
    // partners once every class is linked, their head chunks (a cache miss each, mostly)
    // fetched meanwhile.
    std::vector<uint32_t>& defer = deferred_;
    defer.clear();
    auto link = [&](uint32_t y) {
      const RaceClass& Y = s.classes[y];
      const AccessStream& ys = streams_[Y.stream];
      // The new class N is the key's.
      if (ys.thread == key.thread) return;
      const uint64_t y_begin = Begin(s, y);
      if (!(y_begin < end && begin < y_begin + Y.size())) return;
      if (locks_->Exclusive(ys.lockset, key.lockset)) return;
      const bool y_first = RaceMask(ys.kind, key.kind) != 0;  // the pair (Y, N)
      const bool n_first = RaceMask(key.kind, ys.kind) != 0;  // the pair (N, Y)
      // The pair (Y, N) is settled against N's first member, this access, as Access's walk of
      // N's partners would: its witness if Y's latest is not ordered before it. Else it waits for
      // N's next member, unless there is none (`last_of_bytes`) or Y gets no more members.
      if (y_first) {
        ++candidates_;
        if (!por.OrderedBeforeCurrent(ys.thread, Y.latest_local, key.thread)) {
          AddPairWitness(s, y, id, Y, s.classes[id], i);
        } else if (!Y.complete && !last_of_bytes) {
          add_partner(id, y);
        }
      }
      if (n_first) {
        ++candidates_;
        if (!Y.complete) {
          s.partners.Prefetch(Y.partners);
          defer.push_back(y);
        }
      }
    };
    auto push_deferred = [&] {
      for (uint32_t y : defer) add_partner(y, id);
    };
    if (single) {
      for (uint32_t y = 0; y < id; ++y) link(y);
      push_deferred();
      return id;
    }
    // A quiet class pairs with loud ones only.
    for (uint8_t side = key_side == 1 ? 0 : 1; side < 2; ++side) {
      const ClassesByBegin& by = s.by_begin[side];
      if (by.small) {
        // Small classes: those starting at a byte one of them (of up to widest_small bytes)
        // could reach this one from.
        const uint64_t reach = std::max<uint64_t>(by.widest_small, 1);
        const uint64_t from = begin >= reach ? begin - reach + 1 : 0;
        by.small->ForEachIn(from, end, [&](uint32_t head) {
          for (uint32_t y = head; y != kNil; y = s.classes[y].next_same_begin()) link(y);
        });
      }
      for (uint32_t k = 0; k < by.by_size.size(); ++k) {
        const uint64_t reach = uint64_t{1} << k;  // the most bytes a class of the bucket has
        const uint64_t start = begin >= reach ? begin - reach + 1 : 0;
        for (auto it = by.by_size[k].lower_bound(start);
             it != by.by_size[k].end() && it->first < end; ++it)
          link(it->second);
      }
    }
    push_deferred();
    if (chained) {
      if (!own.small) own.small = std::make_unique<ByteHeads>(info.begin, info.end);
      uint32_t& head = own.small->Slot(begin);
      // Every class deeper than the first kChainWalk of the chain is in the index: all of them
      // once it gets that long (chain_length: as the lookup above walked it), and each new one
      // since, which says so (chain_indexed).
      if (chain_length >= kChainWalk) {
        s.index.Keep(id, hash);
        s.classes[id].chain_indexed = 1;
        for (uint32_t c = head; chain_length == kChainWalk && c != kNil;
             c = s.classes[c].next_same_begin())
          s.index.Keep(c, KeyOf(s, c).Hash());
      }
      s.classes[id].set_next_same_begin(head);
      head = id;
      own.widest_small = std::max(own.widest_small, static_cast<uint32_t>(end - begin));
    } else {
      const auto bucket = static_cast<uint32_t>(std::bit_width(end - begin - 1));
      if (own.by_size.size() <= bucket) own.by_size.resize(bucket + 1);
      own.by_size[bucket].emplace(begin, id);
    }
    return id;
  }

  // `count` candidates of the same sites and patterns, `first`-`second` the best of them.
  void RecordAll(SiteId first_site, SiteId second_site, uint32_t mask, EventIndex first,
                 EventIndex second, bool observed, uint64_t count) {
    for (uint32_t bit = 0; bit < group_.size(); ++bit) {
      if (!(mask >> bit & 1)) continue;
      if (max_per_site_ > 0 && !best_[bit].count({first_site, second_site}) &&
          !TakeSiteShares(first_site, second_site, bit)) {
        capped_ += count;
        continue;
      }
      auto [it, inserted] = best_[bit].try_emplace({first_site, second_site}, Best{});
      Best& best = it->second;
      if (inserted ||
          Best{first, second, observed, 0}.BetterThan(best.observed, best.first, best.second)) {
        best.first = first;
        best.second = second;
        best.observed = observed;
      }
      best.witnesses += count;
    }
  }

  // A new site tuple of pattern `bit`: false when one of its sites already takes part in
  // max_per_site_ tuples; otherwise each distinct site counts one more (pattern_search.cpp).
  bool TakeSiteShares(SiteId a, SiteId b, uint32_t bit) {
    std::unordered_map<SiteId, uint32_t>& shares = site_shares_[bit];
    for (SiteId site : {a, b})
      if (auto it = shares.find(site); it != shares.end() && it->second >= max_per_site_)
        return false;
    ++shares[a];
    if (b != a) ++shares[b];
    return true;
  }

  std::vector<uint32_t> deferred_;       // ClassOf's, kept for its room
  std::vector<const Pattern*> group_;    // at most 32: a bit of a mask each
  const std::vector<uint8_t>& guarded_;  // RaceGuardedLocations, per location
  HeldLocks* locks_;
  uint32_t max_per_site_;  // AnalysisOptions::max_per_site
  KindMasks masks_;        // the patterns each pair of kinds matches
  // Per access kind: 0 for a quiet kind, 1 for a loud one. Two classes of quiet kinds match no
  // pattern in either order (reads, under the built-in races), so a new quiet class is paired
  // with the loud classes only: a buffer that threads only read then costs a walk of its writes'
  // classes, not of every reader's.
  std::array<uint8_t, kEventKindCount> loud_;
  StreamIds streams_;      // of the classes (RaceClass::stream)
  // Location l's state: locations_[l], or, in a search of one shard's locations (RaceShards),
  // locations_[slot_[l]].
  LocationState& State(LocationId l) {
    if (slot_.empty()) return locations_[l];
    assert(slot_[l] != kNoSlot);
    return locations_[slot_[l]];
  }
  // The locations of other shards' searches (Absorb), and where each of them is.
  struct Shard {
    std::vector<LocationState> locations;
    std::vector<uint32_t> slot;
  };
  std::vector<Shard> absorbed_;
  LocationState* Absorbed(LocationId l) {
    for (Shard& shard : absorbed_)
      if (shard.slot[l] != kNoSlot) return &shard.locations[shard.slot[l]];
    assert(false);  // every location is some shard's
    return nullptr;
  }
  static constexpr uint32_t kNoSlot = ~0u;
  std::vector<LocationState> locations_;
  std::vector<uint32_t> slot_;
  std::vector<std::unordered_map<std::pair<SiteId, SiteId>, Best, SiteTupleHash>> best_;
  std::vector<std::unordered_map<SiteId, uint32_t>> site_shares_;  // per pattern: tuples per site
  uint64_t capped_ = 0;
  uint64_t candidates_ = 0;
};

}  // namespace

std::vector<uint8_t> RaceGuardedLocations(
    const std::vector<AccessGuards>& guards,
    const std::vector<std::pair<EventIndex, LocationId>>& frees) {
  std::vector<uint8_t> guarded(guards.size(), 0);
  for (size_t l = 0; l < guards.size(); ++l) guarded[l] = guards[l].guard != 0;
  for (const auto& [event, l] : frees) guarded[l] = 0;
  return guarded;
}

struct RaceSearch::Impl : GroupSearch {
  using GroupSearch::GroupSearch;
};

RaceSearch::RaceSearch(const std::vector<const Pattern*>& group, size_t location_count,
                       const std::vector<uint8_t>& guarded, HeldLocks* locks, uint32_t max_per_site,
                       const std::vector<uint8_t>* owner, uint8_t shard)
    : impl_(std::make_unique<Impl>(group, location_count, guarded, locks, max_per_site, owner,
                                   shard)) {}
RaceSearch::~RaceSearch() = default;
RaceSearch::RaceSearch(RaceSearch&&) noexcept = default;
RaceSearch& RaceSearch::operator=(RaceSearch&&) noexcept = default;

void RaceSearch::Access(EventIndex i, const Event& e, LocationId l, const LocationInfo& info,
                        AccessClassLookup& cls, uint32_t lockset, uint32_t local,
                        bool last_of_bytes, const PorClocks& por) {
  impl_->Access(i, e, l, info, cls, lockset, local, last_of_bytes, por);
}

void RaceSearch::Free(EventIndex i, const Event& e, LocationId l, uint32_t lockset, uint32_t local,
                      const PorClocks& por) {
  impl_->Free(i, e, l, lockset, local, por);
}

void RaceSearch::Prefetch(LocationId l) const {
  impl_->Prefetch(l);
}

void RaceSearch::Seal(LocationId l) {
  impl_->Seal(l);
}

void RaceSearch::Retire(LocationId l) {
  impl_->Retire(l);
}

void RaceSearch::Absorb(RaceSearch&& other) {
  impl_->Absorb(*other.impl_);
  other.impl_.reset();
}

std::vector<Finding> RaceSearch::Finish(PatternSearchStats* stats) {
  return impl_->Finish(stats);
}

bool IsRaceShaped(const Pattern& p) {
  return p.adjacent && p.unordered && p.size() == 2 && p.variable[0] == p.variable[1];
}

}  // namespace pecan
