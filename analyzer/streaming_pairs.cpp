// The streaming search of the four-event shape: per thread its open region (the events, lock
// sets and clocks of its slots, shared with the units formed in it) and its last kMaxUnitScan
// region accesses; per pair of kept locations the pair classes with their members, the bucket
// order of their lock sets and the units waiting to be resolved. One enumeration of the region
// pairs serves every group (the two orders of the two locations).
#include "analyzer/streaming_pairs.h"

#include <algorithm>
#include <array>
#include <functional>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "analyzer/access_class_key.h"
#include "analyzer/block_vector.h"
#include "analyzer/flat_hash_map.h"
#include "analyzer/site_shares.h"
#include "analyzer/unit_group_keys.h"
#include "analyzer/window_prefilter.h"

namespace pecan {
namespace {

constexpr uint32_t kNoSlot = ~0u;
constexpr size_t kNoMember = ~size_t{0};
// pattern_search.cpp: a unit's second access, and a pair's, is at most this many region accesses
// after its first.
constexpr uint32_t kMaxUnitScan = 128;
// Events between two looks for the units every thread knows, and between two refreshes of what
// the threads may know of one (the compaction's thresholds).
constexpr uint64_t kCloseEvery = 1024;
constexpr uint64_t kKnowledgeRefresh = 1 << 16;
// Region records kept for reuse (their storage), at most; a record of a region longer than
// kSpareEvents is not kept (spares hold a few MB at most, and a long region's growth is cheap per
// event).
constexpr size_t kSpareRecords = 1024;
constexpr size_t kSpareEvents = 1024;

// No place (a region pair no group makes a member or a straight unit of).
constexpr uint32_t kNoPlace = ~0u;

using Clock = ClockSnapshot;

uint32_t Entry(const std::vector<uint32_t>& clock, ThreadId t) {
  return t < clock.size() ? clock[t] : 0;
}

// Where SearchPatternGroup meets a region pair (a unit's e0 and e3, or a pair class's member):
// (region << 32 | position of the first access among the region's, position of the second).
struct Order {
  uint64_t first = ~uint64_t{0};
  uint64_t second = ~uint64_t{0};
  bool operator<(const Order& o) const {
    return first != o.first ? first < o.first : second < o.second;
  }
  bool operator==(const Order&) const = default;
};

// A region: its events from its first on, the lock set held at each, and the thread's clock from
// each event where it changed. Shared by the units formed in it.
struct RegionRecord {
  uint32_t first_local = 0;
  std::vector<EventIndex> events;
  std::vector<EventKind> kinds;
  std::vector<uint32_t> locksets;
  std::vector<std::pair<uint32_t, uint32_t>> lock_runs;  // (first local, lock set) of each run
  std::vector<std::pair<uint32_t, Clock>> clocks;        // (local, clock from it on)

  void Clear(uint32_t local) {
    first_local = local;
    events.clear();
    kinds.clear();
    locksets.clear();
    lock_runs.clear();
    clocks.clear();
  }
  EventIndex EventAt(uint32_t local) const { return events[local - first_local]; }
  EventKind KindAt(uint32_t local) const { return kinds[local - first_local]; }
  uint32_t LocksetAt(uint32_t local) const { return locksets[local - first_local]; }
  // The prefilter of the window of slots lo..hi (events of this region), from its lock runs.
  WindowPrefilter PrefilterOf(uint32_t lo, uint32_t hi) const {
    if (hi - lo > WindowPrefilter::kSlots) return WindowPrefilter{};
    const auto first = std::prev(
        std::upper_bound(lock_runs.begin(), lock_runs.end(), lo,
                         [](uint32_t local, const auto& run) { return local < run.first; }));
    const auto last =
        std::upper_bound(first, lock_runs.end(), hi,
                         [](uint32_t local, const auto& run) { return local < run.first; });
    return WindowPrefilter::Of(lo, hi, static_cast<size_t>(last - first), [&](size_t k) {
      return first[static_cast<std::ptrdiff_t>(k)].second;
    });
  }
  // The thread's clock entry for thread b at its event `local`: b's events before it in POR.
  uint32_t Knows(uint32_t local, ThreadId b) const {
    auto it = std::upper_bound(clocks.begin(), clocks.end(), local,
                               [](uint32_t x, const auto& entry) { return x < entry.first; });
    return Entry(*std::prev(it)->second, b);
  }
};

// An access with no class number: one on a location where every pair is skipped (Skipped).
constexpr uint32_t kNoClass = ~0u;

// One of a thread's last kMaxUnitScan accesses in its open region.
struct RecentAccess {
  EventIndex event = 0;
  uint32_t local = 0;
  uint32_t position = 0;  // among the region's accesses
  LocationId location = 0;
  uint32_t cls = 0;  // its access class on the location (kNoClass: none, see Skipped)
  uint32_t lockset = 0;
  SiteId site = 0;
  EventKind kind = EventKind::kUnspecified;
  uint8_t eligible = 0;  // its location's LocationState::eligible (2 bits per group)
  uint32_t clock = 0;    // the region record's clock at it
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct PairMember {
  EventIndex x1 = 0;
  EventIndex x2 = 0;
  uint32_t local1 = 0;
  uint32_t local2 = 0;
  Clock clock1;
  Clock clock2;
};

// A class of region pairs (ClassesOf in pattern_search.cpp): the pair of its accesses' classes.
// AddPair reads the fields up to `compacted` for every pair: they come first, so that they span
// fewer cache lines than the whole record.
struct PairClass {
  uint64_t key = 0;         // the access classes: first << 32 | second
  uint32_t dead_below = 0;  // a pair whose x1 is below this no unit can take
  ThreadId thread = 0;
  Order first;  // its first pair in SearchPatternGroup's enumeration
  // The greatest (x1, x2) ever added: a pair at or after it goes at the end without a look at
  // the members (their tail is seldom in the cache).
  EventIndex last_x1 = 0;
  EventIndex last_x2 = 0;
  std::vector<PairMember> members;  // by (x1, x2): those a unit may still take (Compact)
  size_t compacted = 0;             // members after the last compaction
  std::array<SiteId, 2> sites{};
  std::array<EventKind, 2> kinds{};
  std::array<uint32_t, 2> locksets{};
  std::array<uint64_t, 2> begin{};
  std::array<uint64_t, 2> end{};
};

using Prefilter = WindowPrefilter;

// Units of one group, thread, patterns and prefilter pair with the same classes: those classes
// (with the patterns each completes) are kept with the group, for the candidate count and so that
// a unit looks only at them.
struct UnitGroup {
  uint32_t group = 0;
  ThreadId thread = 0;
  uint32_t mask = 0;
  Prefilter prefilter;
  uint64_t units = 0;
  std::vector<std::pair<uint32_t, uint32_t>> classes;  // (class, patterns)
};

// A pair of kept locations, (that of x1, that of x2): its pair classes, and its units.
struct Place {
  std::array<LocationId, 2> locations{};
  std::vector<PairClass> classes;
  FlatIdTable ids{8};
  std::vector<std::pair<uint32_t, Order>> buckets;   // lock addresses of x1 -> their first pair
  std::vector<UnitGroup> groups;                     // every unit formed, for the candidate count
  UnitGroupKeys group_keys;                          // theirs, by index
  std::vector<std::pair<uint32_t, uint64_t>> units;  // (unit, serial) formed; some closed
  size_t units_compacted = 0;
  bool released = false;  // neither location is accessed again: its units are resolved
};

// Groups one search serves: the built-in ones are two (the two orders of the locations).
constexpr size_t kMaxGroups = 4;
static_assert(2 * kMaxGroups <= 8, "RecentAccess::eligible holds 2 bits per group");

// A unit as one group sees it: its place, the patterns it fits (0: none, not a unit of the group)
// and the classes a member in place already completed.
struct Facet {
  uint32_t place = 0;
  uint32_t mask = 0;
  uint32_t unit_group = 0;  // its UnitGroup in the place
  std::vector<uint32_t> in_place;
};

// A region's access e0 and its access e3 to another location at most kMaxUnitScan accesses later;
// its window is slots lo..hi of its thread, slot s meaning "just before the thread's event s".
struct Unit {
  ThreadId thread = 0;
  EventIndex e0 = 0;
  EventIndex e3 = 0;
  uint32_t lo = 0;
  uint32_t hi = 0;
  SiteId site0 = 0;
  SiteId site3 = 0;
  EventKind kind0 = EventKind::kUnspecified;
  EventKind kind3 = EventKind::kUnspecified;
  LocationId location0 = 0;
  LocationId location3 = 0;
  uint64_t begin0 = 0, end0 = 0, begin3 = 0, end3 = 0;
  Order key;
  Prefilter prefilter;
  LocalShared<const RegionRecord> record;
  std::array<Facet, kMaxGroups> facets;
  uint64_t serial = 0;  // 0: closed (the entry is free)
};

// A thread's open unit in a min-heap by the top of its window.
struct UnitRef {
  uint32_t local = 0;
  uint32_t unit = 0;
  uint64_t serial = 0;
  bool operator>(const UnitRef& o) const { return local > o.local; }
};

struct ThreadState {
  RegionId region = kNoRegion;
  uint32_t accesses = 0;  // the region's accesses so far
  LocalShared<RegionRecord> record;
  std::vector<RecentAccess> recent;  // from recent_begin on: the last kMaxUnitScan accesses
  size_t recent_begin = 0;
  uint32_t version = 0;  // PorStep::version of its last event
  uint64_t events_seen = 0;
  std::vector<UnitRef> closers;  // its open units by hi (closed ones are dropped lazily)
};

struct LocationState {
  std::vector<uint32_t> places;
  bool sealed = false;
};

struct MoveRecord {
  EventIndex event = 0;
  EventIndex anchor = 0;
  EventKind kind = EventKind::kUnspecified;
  EventKind anchor_kind = EventKind::kUnspecified;
};

struct Witness {
  std::array<EventIndex, 4> events{};
  bool observed = false;
  ThreadId moved_thread = 0;
  ThreadId anchor_thread = 0;
  std::array<MoveRecord, 2> moves{};
  uint32_t move_count = 0;

  EventIndex Last() const { return *std::max_element(events.begin(), events.end()); }
  EventIndex Window() const { return Last() - *std::min_element(events.begin(), events.end()); }
  bool BetterThan(const Witness& o) const {
    return BetterWitness(observed, Last(), Window(), o.observed, o.Last(), o.Window());
  }
};

struct ClassRef {
  uint32_t place = 0;
  uint32_t cls = 0;
};

// One site tuple of one pattern. The search order of a match is its unit's, then its class's
// (which can still move up when a region opened earlier completes a pair later): so the unit
// that met the tuple first is kept with the classes it met it with, and the best witnesses with
// the earliest unit among them, each with its class. Finish orders the classes.
struct TupleResult {
  uint64_t count = 0;
  Order first_unit;
  ClassRef first_class;
  std::vector<ClassRef> more_first;
  Order best_unit;
  ClassRef best_class;
  Witness best;
  std::vector<std::pair<ClassRef, Witness>> more_best;
};

struct SitesHash {
  size_t operator()(const std::array<SiteId, 4>& s) const {
    uint64_t h = 0xcbf29ce484222325ull;
    for (SiteId x : s) h = (h ^ x) * 0x100000001b3ull;
    return static_cast<size_t>(h);
  }
};

// One group of patterns (one order of the two locations).
struct Group {
  explicit Group(const std::vector<const Pattern*>& group)
      : patterns(group),
        masks(group),
        some_plain(group.front()->some_plain),
        straight(group.front()->variable[1] == group.front()->variable[0]),
        results(group.size()) {}
  std::vector<const Pattern*> patterns;
  KindMasks masks;
  bool some_plain;
  bool straight;  // x1 on e0's location (SV l1 l1 l2 l2), else on e3's (l1 l2 l1 l2)
  std::vector<std::unordered_map<std::array<SiteId, 4>, TupleResult, SitesHash>> results;
  // Variable of x1 and of x2 (0: e0's, 1: e3's).
  int FirstVariable() const { return straight ? 0 : 1; }
};

}  // namespace

bool IsPairShaped(const Pattern& p) {
  if (p.size() != 4 || p.adjacent || p.unordered) return false;
  const auto& v = p.variable;
  return p.thread[0] == p.thread[3] && p.thread[1] == p.thread[2] && p.thread[0] != p.thread[1] &&
         p.region[0] == p.region[3] && p.region[1] == p.region[2] && p.region[0] != p.region[1] &&
         v[0] != v[3] && v[1] != v[2] &&
         ((v[1] == v[0] && v[2] == v[3]) || (v[1] == v[3] && v[2] == v[0]));
}

struct PairSearch::Impl {
  Impl(const std::vector<std::vector<const Pattern*>>& groups,
       const std::vector<LocationInfo>& infos, const std::vector<AccessGuards>& guards,
       HeldLocks* locks, uint32_t max_per_site)
      : infos_(infos),
        guards_(guards),
        locks_(locks),
        max_per_site_(max_per_site),
        locations_(infos.size()),
        eligible_(infos.size(), 0) {
    if (groups.size() > kMaxGroups)
      throw std::logic_error("PairSearch: more pattern groups than one search serves");
    for (const auto& group : groups) groups_.emplace_back(group);
    // pattern_search.cpp's PlanLocations: a location fits variable v if some pattern of the group
    // finds there the writes and reads it has on v (both variables have both threads' events,
    // and another thread's classes are needed on each anyway).
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      const Pattern& shape = *groups_[g].patterns.front();
      std::vector<std::array<std::pair<bool, bool>, 2>> needs;
      for (const Pattern* p : groups_[g].patterns) {
        std::array<std::pair<bool, bool>, 2> need{};
        for (uint32_t pos = 0; pos < 4; ++pos) {
          auto& [write, read] = need[shape.variable[pos] == shape.variable[0] ? 0 : 1];
          write |= p->access[pos] == AccessMatch::kWrite;
          read |= p->access[pos] == AccessMatch::kRead;
        }
        needs.push_back(need);
      }
      for (LocationId l = 0; l < infos.size(); ++l) {
        for (int v = 0; v < 2; ++v) {
          const bool fits = std::any_of(needs.begin(), needs.end(), [&](const auto& need) {
            return (!need[v].first || infos[l].written) && (!need[v].second || infos[l].read);
          });
          if (fits) eligible_[l] |= static_cast<uint8_t>(1u << (2 * g + v));
        }
      }
    }
  }

  ThreadState& Thread(ThreadId t) {
    if (t >= threads_.size()) {
      threads_.resize(t + 1);
      knowledge_.resize(t + 1);
    }
    return threads_[t];
  }

  void Visit(EventIndex i, const Event& e, LocationId l, AccessClassLookup* cls, uint32_t lockset,
             PorStep step, RegionId region, const PorClocks& por) {
    ++fed_;
    now_ = i;
    ThreadState& ts = Thread(e.thread);
    const bool new_clock = ts.events_seen == 0 || step.version != ts.version;
    ts.version = step.version;
    ++ts.events_seen;
    if (fed_ % kCloseEvery == 0) CloseKnown(por);
    if (region != ts.region) {
      ts.region = region;
      ts.accesses = 0;
      ts.recent.clear();
      ts.recent_begin = 0;
      Recycle(std::move(ts.record));
      if (region != kNoRegion) {
        if (spare_records_.empty()) {
          ts.record = LocalShared<RegionRecord>::Make();
        } else {
          ts.record = std::move(spare_records_.back());
          spare_records_.pop_back();
        }
        ts.record->Clear(step.local);
      }
    }
    if (region == kNoRegion) return;
    RegionRecord& r = *ts.record;
    r.events.push_back(i);
    r.kinds.push_back(e.kind);
    r.locksets.push_back(lockset);
    if (r.lock_runs.empty() || r.lock_runs.back().second != lockset)
      r.lock_runs.emplace_back(step.local, lockset);
    if (r.clocks.empty() || new_clock)
      r.clocks.emplace_back(step.local, por.CurrentClock(e.thread));
    if (l == kNoLocation) return;
    const uint32_t position = ts.accesses++;  // every access counts towards kMaxUnitScan
    const uint32_t eligible = eligible_[l];
    if (eligible == 0) return;

    // The class names x1's or x2's in a pair class key (AddPair): no pair is kept where it is
    // skipped (below).
    const AccessClassKey& key = cls->key();
    const bool skipped = Skipped(l);
    const RecentAccess now{i,
                           step.local,
                           position,
                           l,
                           skipped ? kNoClass : cls->Get().id,
                           lockset,
                           e.site,
                           e.kind,
                           static_cast<uint8_t>(eligible),
                           static_cast<uint32_t>(r.clocks.size() - 1),
                           key.begin,
                           key.end};
    while (ts.recent_begin < ts.recent.size() &&
           position - ts.recent[ts.recent_begin].position > kMaxUnitScan)
      ++ts.recent_begin;
    if (ts.recent_begin > kMaxUnitScan) {  // a ring in a vector: drop the stale prefix now and then
      ts.recent.erase(ts.recent.begin(),
                      ts.recent.begin() + static_cast<std::ptrdiff_t>(ts.recent_begin));
      ts.recent_begin = 0;
    }
    for (size_t k = ts.recent_begin; k < ts.recent.size(); ++k) {
      const RecentAccess& earlier = ts.recent[k];
      if (earlier.location == l) continue;
      const PairUse use = UseOf(earlier, now);
      if (!use.member && !use.unit) continue;
      // The place of (earlier's location, l): AddPair's, and that of the straight groups' units.
      // A pair where no other thread forms a unit (its region accesses miss a location) is not
      // kept, nor its place made: nothing would take it. Nor one on a location where it is
      // skipped (Skipped).
      const bool member =
          use.member && guards_[earlier.location].RegionAccessByOtherThan(e.thread) &&
          guards_[l].RegionAccessByOtherThan(e.thread) && earlier.cls != kNoClass && !skipped;
      const uint32_t place = member ? PlaceOf(earlier.location, l) : kNoPlace;
      if (member) AddPair(e.thread, region, r, earlier, now, place, use.kinds, por);
      if (use.unit) FormUnit(ts, e.thread, earlier, now, use.masks, place);
    }
    ts.recent.push_back(now);
  }

  // Visit asks for the classes of region accesses only, to eligible locations not skipped.
  bool AsksClasses(LocationId l) const {
    return eligible_[l] != 0 && guards_[l].region_thread != AccessGuards::kNone && !Skipped(l);
  }

  // Whether every unit's prefilter skips every pair with an access to location `l`: a unit that
  // could take one has a region access to `l` too, so its window (of one lock set) holds the lock
  // every region access to `l` holds (Reachable); and the pair's accesses, in a region of one lock
  // set, both hold it in write mode.
  bool Skipped(LocationId l) const {
    const AccessGuards& guards = guards_[l];
    return guards.PrefilterSkipsHolding(guards.region_guard);
  }

  uint32_t PlaceOf(LocationId first, LocationId second) {
    bool inserted = false;
    const uint32_t id = place_ids_.FindOrInsert(uint64_t{first} << 32 | second,
                                                static_cast<uint32_t>(places_.size()), &inserted);
    if (inserted) {
      places_.emplace_back();
      places_.back().locations = {first, second};
      locations_[first].places.push_back(id);
      locations_[second].places.push_back(id);
    }
    return id;
  }

  // Group g's search pairs a unit of these patterns and window with class c (BindUnitClass: lock
  // prefilter, thread, kinds): the patterns it can complete, or 0.
  uint32_t Pairs(uint32_t g, ThreadId thread, uint32_t unit_mask, const Prefilter& prefilter,
                 const PairClass& c) {
    if (c.thread == thread) return 0;
    const KindMasks& masks = groups_[g].masks;
    const uint32_t mask = unit_mask & masks.Of(1, c.kinds[0]) & masks.Of(2, c.kinds[1]);
    if (mask == 0) return 0;
    return prefilter.Skips(c.locksets[0], *locks_) ? 0 : mask;
  }

  // What the groups make of a region pair (a, b), a earlier: a pair class member (some group
  // binds x1 to a's location and x2 to b's; `kinds`: and takes their kinds there), and units
  // (e0 = a, e3 = b: the patterns of each group they fit).
  struct PairUse {
    bool member = false;
    bool kinds = false;
    bool unit = false;
    std::array<uint32_t, kMaxGroups> masks{};
  };
  PairUse UseOf(const RecentAccess& a, const RecentAccess& b) const {
    PairUse use;
    auto bit = [](const RecentAccess& x, uint32_t g, int v) {
      return (x.eligible >> (2 * g + v) & 1) != 0;
    };
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      const KindMasks& masks = groups_[g].masks;
      const int v = groups_[g].FirstVariable();
      if (bit(a, g, v) && bit(b, g, 1 - v)) {
        use.member = true;
        use.kinds |= (masks.Of(1, a.kind) & masks.Of(2, b.kind)) != 0;
      }
      if (bit(a, g, 0) && bit(b, g, 1)) {
        use.masks[g] = masks.Of(0, a.kind) & masks.Of(3, b.kind);
        use.unit |= use.masks[g] != 0;
      }
    }
    return use;
  }

  // A region pair (x1 earlier, x2 now) of thread `thread`, at `place`: a member of its pair
  // class if some group takes its `kinds`.
  void AddPair(ThreadId thread, RegionId region, const RegionRecord& r, const RecentAccess& x1,
               const RecentAccess& x2, uint32_t place, bool kinds, const PorClocks& por) {
    Place& P = places_[place];
    const Order order{uint64_t{region} << 32 | x1.position, x2.position};
    // Buckets rank by their first pair of any kind (Bucket in pattern_search.cpp).
    auto bucket = std::find_if(P.buckets.begin(), P.buckets.end(),
                               [&](const auto& b) { return b.first == x1.lockset; });
    if (bucket == P.buckets.end()) {
      P.buckets.emplace_back(x1.lockset, order);
    } else if (order < bucket->second) {
      bucket->second = order;
    }
    if (!kinds) return;
    const uint64_t key = uint64_t{x1.cls} << 32 | x2.cls;
    bool created = false;
    const uint32_t id = P.ids.FindOrAdd(
        key * 0x9E3779B97F4A7C15ull, static_cast<uint32_t>(P.classes.size()),
        [&](uint32_t index) { return P.classes[index].key == key; }, &created);
    if (created) {
      PairClass c;
      c.key = key;
      c.thread = thread;
      c.sites = {x1.site, x2.site};
      c.kinds = {x1.kind, x2.kind};
      c.locksets = {x1.lockset, x2.lockset};
      c.begin = {x1.begin, x2.begin};
      c.end = {x1.end, x2.end};
      c.first = order;
      for (UnitGroup& g : P.groups) {
        const uint32_t pairs = Pairs(g.group, g.thread, g.mask, g.prefilter, c);
        if (pairs == 0) continue;
        candidates_ += g.units;
        g.classes.emplace_back(id, pairs);
      }
      P.classes.push_back(std::move(c));
    }
    PairClass& C = P.classes[id];
    if (order < C.first) C.first = order;
    if (x1.local < C.dead_below) return;  // no unit can take it (Compact)
    // Nor if every unit's window holds the lock of x1's location's region accesses (Reachable):
    // x1 holds it too, so no pair moves into a window, nor lies inside one.
    const AccessGuards& guards = guards_[x1.location];
    if (guards.WindowsHold(guards.region_guard)) return;
    // In (x1, x2) order: pairs complete in the order of x2, so it goes near the end.
    auto at = C.members.end();
    if (x1.event < C.last_x1 || (x1.event == C.last_x1 && x2.event < C.last_x2)) {
      while (at != C.members.begin() &&
             (std::prev(at)->x1 > x1.event ||
              (std::prev(at)->x1 == x1.event && std::prev(at)->x2 > x2.event)))
        --at;
    } else {
      C.last_x1 = x1.event;
      C.last_x2 = x2.event;
    }
    C.members.insert(at, PairMember{x1.event, x2.event, x1.local, x2.local,
                                    r.clocks[x1.clock].second, r.clocks[x2.clock].second});
    if (C.members.size() >= 8 && C.members.size() >= 2 * C.compacted) Compact(C, por);
  }

  // Drops the members no unit can take. Thread A's units take a member of class C (thread B) in
  // place (its x1 after e0: in A's open region or later), or at a slot s of the window where
  //   (1) x1 does not know A's event s: clock1[A] <= s;
  //   (2) A's event s-1 does not know x1: Knows(s-1, B) <= local1;
  //   (3) x2 fits a free slot s2 from max(s, clock2[A]) on: Knows(s2-1, B) <= local2.
  // So no unit takes a member below every value Knows(., B) can take from now on (`dead_below`),
  // and member i is never taken if an earlier member j < i kept fits wherever i does: x2_j <= x2_i
  // (then clock2_j <= clock2_i), and no value Knows(., B) can take lies in (local1_j, local1_i] or
  // (local2_j, local2_i]. Those values are the entries for B of every thread's clock now, of every
  // message still held (PorClocks::KnowledgeOf), of the clocks of open regions and open units,
  // and what B sends later: all above its position at the last refresh, so the members above it
  // are kept.
  void Compact(PairClass& C, const PorClocks& por) {
    const Knowledge& k = KnowledgeAbout(C.thread, por);
    C.dead_below = k.least;
    auto gap = [&](uint32_t low, uint32_t high) {  // no value in (low, high]
      if (high >= k.b_events) return false;
      const auto next = std::upper_bound(k.values.begin(), k.values.end(), low);
      return next == k.values.end() || *next > high;
    };
    size_t kept = 0;
    size_t last = kNoMember;  // the last member kept, in the new numbering
    for (size_t m = 0; m < C.members.size(); ++m) {
      PairMember& x = C.members[m];
      if (x.local1 < k.least) continue;
      if (last != kNoMember && x.x1 <= k.oldest_open) {
        const PairMember& j = C.members[last];
        if (j.x2 <= x.x2 && gap(j.local1, x.local1) &&
            (j.local2 >= x.local2 || gap(j.local2, x.local2)))
          continue;
      }
      if (kept != m) C.members[kept] = std::move(x);
      last = kept++;
    }
    C.members.resize(kept);
    C.compacted = kept;
  }

  // What the other threads may know of thread b from now on, refreshed every kKnowledgeRefresh
  // events: the values (sorted), the least of them, and the first event of the oldest region of
  // another thread open at the refresh, or the refresh's event (a member after it may be in place
  // for a later unit).
  struct Knowledge {
    bool valid = false;
    uint64_t at = 0;
    uint32_t b_events = 0;
    uint32_t least = 0;
    EventIndex oldest_open = 0;
    std::vector<uint32_t> values;
  };

  const Knowledge& KnowledgeAbout(ThreadId b, const PorClocks& por) {
    Knowledge& k = knowledge_[b];
    if (k.valid && fed_ - k.at < kKnowledgeRefresh) return k;
    k.values.clear();
    por.KnowledgeOf(b, &k.values);
    uint32_t least = ~0u;
    EventIndex oldest = now_;  // regions opened later start after it
    // The records of the other threads' open regions and open units, each once.
    std::vector<const RegionRecord*>& records = known_records_;
    records.clear();
    for (ThreadId a = 0; a < por.thread_count(); ++a) {
      if (a == b) continue;
      least = std::min(least, por.LeastKnown(a, b));
      if (a >= threads_.size()) continue;
      ThreadState& as = threads_[a];
      if (as.record && !as.record->events.empty()) {
        records.push_back(as.record.get());
        oldest = std::min(oldest, as.record->events.front());
      }
    }
    for (size_t k = 0; k < units_.size(); ++k) {
      const Unit& u = units_[k];
      if (u.serial != 0 && u.thread != b) records.push_back(u.record.get());
    }
    std::sort(records.begin(), records.end());
    records.erase(std::unique(records.begin(), records.end()), records.end());
    for (const RegionRecord* r : records) {
      for (const auto& [local, clock] : r->clocks) k.values.push_back(Entry(*clock, b));
      least = std::min(least, r->Knows(r->first_local, b));
    }
    std::sort(k.values.begin(), k.values.end());
    k.values.erase(std::unique(k.values.begin(), k.values.end()), k.values.end());
    k.valid = true;
    k.at = fed_;
    k.b_events = static_cast<uint32_t>(threads_[b].events_seen);
    k.least = least;
    k.oldest_open = oldest;
    return k;
  }

  // e0 (earlier) and e3 (now) of thread ts's open region: a unit of each group whose patterns it
  // fits. Its matches in place are recorded now (every pair that ends before e3 is there); the
  // others once no thread's later pairs can fit its window.
  // `masks`: the patterns of each group the unit fits (some are not 0: most region pairs fit no
  // group, and the unit, some 300 bytes, is made only for the others), kept only for the groups
  // some pair class can ever complete (Reachable); `place`: that of (e0's location, e3's) if
  // AddPair made it, else kNoPlace.
  void FormUnit(ThreadState& ts, ThreadId thread, const RecentAccess& e0, const RecentAccess& e3,
                std::array<uint32_t, kMaxGroups> masks, uint32_t place) {
    const Prefilter prefilter = ts.record->PrefilterOf(e0.local + 1, e3.local);
    bool reachable = false;
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      if (masks[g] != 0 && !Reachable(g, thread, e0, e3, prefilter)) masks[g] = 0;
      reachable |= masks[g] != 0;
    }
    if (!reachable) return;
    // Made in its slot, which a closed unit left with no facet (Close); the rest is set here.
    uint32_t at = static_cast<uint32_t>(units_.size());
    if (free_units_.empty()) {
      units_.push_back(Unit{});
    } else {
      at = free_units_.back();
      free_units_.pop_back();
    }
    Unit& u = units_[at];
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      if (masks[g] == 0) continue;
      u.facets[g].mask = masks[g];
      if (!groups_[g].straight) {
        u.facets[g].place = PlaceOf(e3.location, e0.location);
      } else {
        if (place == kNoPlace) place = PlaceOf(e0.location, e3.location);
        u.facets[g].place = place;
      }
    }
    u.thread = thread;
    u.e0 = e0.event;
    u.e3 = e3.event;
    u.lo = e0.local + 1;
    u.hi = e3.local;
    u.site0 = e0.site;
    u.site3 = e3.site;
    u.kind0 = e0.kind;
    u.kind3 = e3.kind;
    u.location0 = e0.location;
    u.location3 = e3.location;
    u.begin0 = e0.begin;
    u.end0 = e0.end;
    u.begin3 = e3.begin;
    u.end3 = e3.end;
    u.key = Order{uint64_t{ts.region} << 32 | e0.position, e3.position};
    u.record = ts.record;
    u.prefilter = prefilter;
    u.serial = ++serial_;
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      Facet& facet = u.facets[g];
      if (facet.mask == 0) continue;
      Place& P = places_[facet.place];
      const size_t found = P.group_keys.Find(u.thread, facet.mask, g, u.prefilter, [&](size_t k) {
        return P.groups[k].group == g && P.groups[k].prefilter == u.prefilter;
      });
      auto group = P.groups.begin() + static_cast<std::ptrdiff_t>(found);
      if (group == P.groups.end()) {
        group = P.groups.insert(group, UnitGroup{g, u.thread, facet.mask, u.prefilter, 0, {}});
        P.group_keys.Add(u.thread, facet.mask, g, u.prefilter);
        for (uint32_t c = 0; c < P.classes.size(); ++c) {
          const uint32_t pairs = Pairs(g, u.thread, facet.mask, u.prefilter, P.classes[c]);
          if (pairs != 0) group->classes.emplace_back(c, pairs);
        }
      }
      ++group->units;
      facet.unit_group = static_cast<uint32_t>(group - P.groups.begin());
      candidates_ += group->classes.size();
      for (const auto& [c, pairs] : group->classes) {
        if (InPlace(u, g, c, pairs)) facet.in_place.push_back(c);
      }
      P.units.emplace_back(at, u.serial);
      if (P.units.size() >= 16 && P.units.size() >= 2 * P.units_compacted) {
        std::erase_if(P.units, [&](const auto& k) {
          return k.first != at && units_[k.first].serial != k.second;
        });
        P.units_compacted = P.units.size();
      }
    }
    // Kept until every thread knows e3, or neither location is accessed again.
    ts.closers.push_back(UnitRef{u.hi, at, u.serial});
    std::push_heap(ts.closers.begin(), ts.closers.end(), std::greater<>());
  }

  // Whether a pair class can ever pair with a unit of group g over e0 and e3 of thread `thread`,
  // with this window prefilter (Pairs). Its region pair is another thread's, with x1 on one of the
  // unit's locations and x2 on the other; and x1 holds the lock that every region access to its
  // location held, if there is one, so a window whose every lock set holds that lock too skips it.
  // A unit of no group that passes is not kept: it would complete nothing and count no candidate
  // (its group's units count only once a class pairs with them).
  bool Reachable(uint32_t g, ThreadId thread, const RecentAccess& e0, const RecentAccess& e3,
                 const Prefilter& prefilter) const {
    const bool straight = groups_[g].straight;
    const AccessGuards& first = guards_[straight ? e0.location : e3.location];
    const AccessGuards& second = guards_[straight ? e3.location : e0.location];
    if (!first.RegionAccessByOtherThan(thread) || !second.RegionAccessByOtherThan(thread))
      return false;
    return first.region_guard == 0 ||
           !prefilter.SkipsEveryClassHolding(first.region_guard, *locks_);
  }

  // Resolves the units whose window every other thread knows: no later pair fits it.
  void CloseKnown(const PorClocks& por) {
    for (ThreadId a = 0; a < threads_.size(); ++a) {
      std::vector<UnitRef>& heap = threads_[a].closers;
      if (heap.empty()) continue;
      uint32_t least = ~0u;
      for (ThreadId b = 0; b < por.thread_count(); ++b) {
        if (b != a) least = std::min(least, por.LeastKnown(b, a));
      }
      while (!heap.empty() && heap.front().local < least) {
        const UnitRef c = heap.front();
        std::pop_heap(heap.begin(), heap.end(), std::greater<>());
        heap.pop_back();
        if (units_[c.unit].serial == c.serial) Close(c.unit);
      }
    }
  }

  void Close(uint32_t at) {
    Unit& u = units_[at];
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      const Facet& facet = u.facets[g];
      if (facet.mask == 0) continue;
      const Place& P = places_[facet.place];
      for (const auto& [c, pairs] : P.groups[facet.unit_group].classes) {
        if (std::find(facet.in_place.begin(), facet.in_place.end(), c) == facet.in_place.end())
          Resolve(u, g, c, pairs);
      }
    }
    Recycle(std::move(u.record));
    // Free (serial 0), as FormUnit finds a slot: no facet; the lists keep their storage.
    u.serial = 0;
    for (Facet& facet : u.facets) {
      facet.mask = 0;
      facet.in_place.clear();
    }
    free_units_.push_back(at);
  }

  // A region record no thread nor unit holds any more is kept for the next region to open.
  void Recycle(LocalShared<const RegionRecord> record) {
    if (record && record.use_count() == 1 && spare_records_.size() < kSpareRecords &&
        record->events.capacity() <= kSpareEvents)
      spare_records_.push_back(std::move(record).ConstCast());
  }

  // Complete's checks (pattern_search.cpp) that depend on the class alone: events on one variable
  // touch common bytes (e0 with the pair's access to its location, e3 with the other), and with
  // some_plain, one access is plain.
  bool Completes(const Unit& u, uint32_t g, const PairClass& c) const {
    const Group& group = groups_[g];
    const size_t with0 = group.straight ? 0 : 1;
    const size_t with3 = 1 - with0;
    const bool first =
        infos_[u.location0].single_range || (c.begin[with0] < u.end0 && u.begin0 < c.end[with0]);
    const bool second =
        infos_[u.location3].single_range || (c.begin[with3] < u.end3 && u.begin3 < c.end[with3]);
    if (!first || !second) return false;
    return !group.some_plain || IsPlainAccess(u.kind0) || IsPlainAccess(c.kinds[0]) ||
           IsPlainAccess(c.kinds[1]) || IsPlainAccess(u.kind3);
  }

  // ResolveClass's first step (pattern_search.cpp): the first member after e0 whose both accesses
  // come before e3, recorded as observed. Every such pair ended before e3, so is here now.
  bool InPlace(const Unit& u, uint32_t g, uint32_t c, uint32_t mask) {
    const uint32_t place = u.facets[g].place;
    const PairClass& C = places_[place].classes[c];
    const std::vector<PairMember>& members = C.members;
    if (members.empty() || members.back().x1 <= u.e0) return false;
    for (auto it = std::upper_bound(members.begin(), members.end(), u.e0,
                                    [](EventIndex e, const PairMember&m) { return e < m.x1; });
         it != members.end() && it->x1 < u.e3; ++it) {
      if (it->x2 >= u.e3) continue;
      if (!Completes(u, g, C)) return true;  // the search stops here too, and records nothing
      Witness w;
      w.events = {u.e0, it->x1, it->x2, u.e3};
      w.observed = true;
      w.moved_thread = C.thread;
      w.anchor_thread = u.thread;
      Record(u, g, ClassRef{place, c}, C, mask, w);
      return true;
    }
    return false;
  }

  // The rest of ResolveClass, then Complete's CanReorder, for a unit no later pair can fit.
  void Resolve(const Unit& u, uint32_t g, uint32_t c, uint32_t mask) {
    const uint32_t place = u.facets[g].place;
    const PairClass& C = places_[place].classes[c];
    if (!Completes(u, g, C)) return;
    const size_t m = FitSlot(u, C);
    if (m == kNoMember) return;
    const PairMember& x = C.members[m];
    Witness w;
    w.events = {u.e0, x.x1, x.x2, u.e3};
    w.moved_thread = C.thread;
    w.anchor_thread = u.thread;
    if (!PlaceEvents(u, C, x, false, &w) && !PlaceEvents(u, C, x, true, &w)) return;
    Record(u, g, ClassRef{place, c}, C, mask, w);
  }

  // ResolveClass's slot search for a pair class (no member is in place): from the top slot down,
  // the first member whose x1 fits the slot and whose x2 fits a free slot from there on, or
  // kNoMember.
  size_t FitSlot(const Unit& u, const PairClass& C) {
    const std::vector<PairMember>& members = C.members;
    const RegionRecord& R = *u.record;
    const ThreadId a = u.thread;
    const ThreadId b = C.thread;
    // No member fits any slot if even the first knows A's top slot, or A's e0 knows even the last.
    if (members.empty() || Entry(*members.front().clock1, a) > u.hi ||
        members.back().local1 < R.Knows(u.lo - 1, b))
      return kNoMember;
    // Slot -> the first slot at or after it where the locks allow x2.
    next_free_.assign(u.hi - u.lo + 2, kNoSlot);
    for (uint32_t s = u.hi + 1; s-- > u.lo;) {
      const bool excluded = locks_->Exclusive(R.LocksetAt(s), C.locksets[1]);
      next_free_[s - u.lo] = excluded ? next_free_[s - u.lo + 1] : s;
    }
    auto second_fits = [&](const PairMember& x, uint32_t s) {
      const uint32_t low = std::max({s, u.lo, Entry(*x.clock2, a)});
      if (low > u.hi) return false;
      const uint32_t s2 = next_free_[low - u.lo];
      return s2 != kNoSlot && R.Knows(s2 - 1, b) <= x.local2;
    };
    for (uint32_t s = u.hi + 1; s-- > u.lo;) {
      if (locks_->Exclusive(R.LocksetAt(s), C.locksets[0])) continue;
      if (next_free_[s - u.lo] == kNoSlot) continue;
      // Members whose x1 is not ordered after A's event s: a prefix. Not before s-1: a suffix.
      const auto end =
          std::partition_point(members.begin(), members.end(),
                               [&](const PairMember& x) { return Entry(*x.clock1, a) <= s; });
      const uint32_t known = R.Knows(s - 1, b);
      const auto begin = std::partition_point(
          members.begin(), end, [&](const PairMember& x) { return x.local1 < known; });
      for (auto it = begin; it < end; ++it) {
        if (second_fits(*it, s)) return static_cast<size_t>(it - members.begin());
      }
    }
    return kNoMember;
  }

  // CanReorder's PlaceEvents (reorder_feasibility.cpp) for x1 and x2 in the unit's window: the
  // nearest slots (or, `earliest`, the earliest), recorded as moves.
  bool PlaceEvents(const Unit& u, const PairClass& C, const PairMember& x, bool earliest,
                   Witness* w) {
    const RegionRecord& R = *u.record;
    const ThreadId a = u.thread;
    const ThreadId b = C.thread;
    w->move_count = 0;
    uint32_t taken = u.lo;  // x2 may not take a slot before x1's
    for (size_t q = 0; q < 2; ++q) {
      const EventIndex e = q == 0 ? x.x1 : x.x2;
      const uint32_t local = q == 0 ? x.local1 : x.local2;
      const uint32_t knows_a = Entry(q == 0 ? *x.clock1 : *x.clock2, a);
      const uint32_t lo = std::max(u.lo, taken);
      const uint32_t hi = u.hi;
      if (lo > hi) return false;
      // The slot e sits at: before A's first event after it.
      uint32_t in_place = u.lo - 1;
      if (e > u.e3) {
        in_place = hi + 1;
      } else if (e > u.e0) {
        in_place = u.lo;
        while (R.EventAt(in_place) < e) ++in_place;
      }
      auto fits = [&](uint32_t s) {
        return knows_a <= s && !locks_->Exclusive(R.LocksetAt(s), C.locksets[q]) &&
               R.Knows(s - 1, b) <= local;
      };
      uint32_t slot = kNoSlot;
      if (earliest) {
        for (uint32_t s = lo; s <= hi && slot == kNoSlot; ++s) {
          if (s == in_place || fits(s)) slot = s;
        }
      } else if (in_place >= lo && in_place <= hi) {
        slot = in_place;
      } else if (in_place > hi) {
        for (uint32_t s = hi + 1; s-- > lo && slot == kNoSlot;) {
          if (fits(s)) slot = s;
        }
      } else {
        for (uint32_t s = lo; s <= hi && slot == kNoSlot; ++s) {
          if (fits(s)) slot = s;
        }
      }
      if (slot == kNoSlot) return false;
      if (slot != in_place) {
        const uint32_t anchor = slot < in_place ? slot : slot - 1;
        w->moves[w->move_count++] = MoveRecord{e, R.EventAt(anchor), C.kinds[q], R.KindAt(anchor)};
      }
      taken = slot;
    }
    return true;
  }

  void Record(const Unit& u, uint32_t g, ClassRef ref, const PairClass& C, uint32_t mask,
              const Witness& w) {
    const std::array<SiteId, 4> sites{u.site0, C.sites[0], C.sites[1], u.site3};
    auto& results = groups_[g].results;
    for (uint32_t bit = 0; mask != 0; ++bit, mask >>= 1) {
      if (!(mask & 1)) continue;
      auto [it, inserted] = results[bit].try_emplace(sites);
      TupleResult& r = it->second;
      ++r.count;
      if (inserted || u.key < r.first_unit) {
        r.first_unit = u.key;
        r.first_class = ref;
        r.more_first.clear();
      } else if (u.key == r.first_unit) {
        r.more_first.push_back(ref);
      }
      if (inserted || w.BetterThan(r.best) || (!r.best.BetterThan(w) && u.key < r.best_unit)) {
        r.best = w;
        r.best_unit = u.key;
        r.best_class = ref;
        r.more_best.clear();
      } else if (!r.best.BetterThan(w) && u.key == r.best_unit) {
        r.more_best.emplace_back(ref, w);
      }
    }
  }

  void Seal(LocationId l) {
    LocationState& s = locations_[l];
    if (s.sealed) return;
    s.sealed = true;
    for (uint32_t p : s.places) {
      Place& P = places_[p];
      if (P.released || !locations_[P.locations[0]].sealed || !locations_[P.locations[1]].sealed)
        continue;
      Release(P);
    }
  }

  // No pair completes on the place again: its units are resolved, and its members go.
  void Release(Place& P) {
    for (const auto& [k, serial] : P.units) {
      if (units_[k].serial == serial) Close(k);
    }
    P.units = {};
    for (PairClass& c : P.classes) c.members = {};
    P.released = true;
  }

  // Where SearchPatternGroup meets class `ref` among its place's: its lock bucket, then itself.
  std::pair<Order, Order> ClassOrder(ClassRef ref) const {
    const Place& P = places_[ref.place];
    const PairClass& C = P.classes[ref.cls];
    const auto bucket = std::find_if(P.buckets.begin(), P.buckets.end(),
                                     [&](const auto& b) { return b.first == C.locksets[0]; });
    return {bucket->second, C.first};
  }

  std::vector<std::vector<Finding>> Finish(const std::vector<ThreadInfo>& threads,
                                           PatternSearchStats* stats) {
    for (Place& P : places_) {
      if (!P.released) Release(P);
    }
    std::vector<std::vector<Finding>> out;
    for (Group& group : groups_) out.push_back(FindingsOf(group, threads, stats));
    stats->candidates += candidates_;
    return out;
  }

  std::vector<Finding> FindingsOf(const Group& group, const std::vector<ThreadInfo>& threads,
                                  PatternSearchStats* stats) const {
    struct Tuple {
      std::array<SiteId, 4> sites;
      std::tuple<Order, Order, Order> first;
      const TupleResult* result;
      const Witness* best;
    };
    std::vector<Finding> out;
    for (uint32_t bit = 0; bit < group.patterns.size(); ++bit) {
      std::vector<Tuple> tuples;
      for (const auto& [sites, r] : group.results[bit]) {
        std::pair<Order, Order> first = ClassOrder(r.first_class);
        for (ClassRef ref : r.more_first) first = std::min(first, ClassOrder(ref));
        std::pair<Order, Order> best = ClassOrder(r.best_class);
        const Witness* witness = &r.best;
        for (const auto& [ref, w] : r.more_best) {
          if (ClassOrder(ref) < best) {
            best = ClassOrder(ref);
            witness = &w;
          }
        }
        tuples.push_back(Tuple{sites, {r.first_unit, first.first, first.second}, &r, witness});
      }
      if (max_per_site_ > 0) {
        // SearchPatternGroup's per-site bound: tuples in the order it meets them.
        std::sort(tuples.begin(), tuples.end(),
                  [](const Tuple& x, const Tuple& y) { return x.first < y.first; });
        KeepWithinSiteShares(
            &tuples, max_per_site_, [](const Tuple& t) { return t.sites; },
            [](const Tuple& t) { return t.result->count; }, &stats->capped);
      }
      for (const Tuple& tuple : tuples) {
        const Witness& w = *tuple.best;
        Finding f;
        f.pattern = group.patterns[bit]->name;
        f.variant = group.patterns[bit]->variant;
        f.observed = w.observed;
        f.events.assign(w.events.begin(), w.events.end());
        f.witnesses = static_cast<uint32_t>(tuple.result->count);
        if (w.observed) {
          f.reason = kObservedReason;
        } else {
          for (uint32_t k = 0; k < w.move_count; ++k) {
            const MoveRecord& m = w.moves[k];
            const bool before = m.anchor < m.event;
            if (!f.reason.empty()) f.reason += "; ";
            f.reason +=
                MoveClause(DescribeEvent(threads, w.moved_thread, m.kind, m.event), before,
                           DescribeEvent(threads, w.anchor_thread, m.anchor_kind, m.anchor));
            f.overtaken.push_back(before ? m.anchor : m.event);
          }
          f.reason += kMovedReasonEnd;
        }
        out.push_back(std::move(f));
      }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding& x, const Finding& y) { return x.events < y.events; });
    return out;
  }

  const std::vector<LocationInfo>& infos_;
  const std::vector<AccessGuards>& guards_;  // per location
  HeldLocks* locks_;
  uint32_t max_per_site_;
  std::vector<Group> groups_;
  std::vector<ThreadState> threads_;
  std::vector<Knowledge> knowledge_;  // per thread
  std::vector<LocationState> locations_;
  // Per location, bit 2g + v: group g's variable v (0: e0's, 1: e3's) fits there. Apart from the
  // locations' states, in a byte each: every access reads it.
  std::vector<uint8_t> eligible_;
  std::vector<Place> places_;
  FlatHashMap<uint64_t, uint32_t, U64Hash> place_ids_;
  // In blocks of up to 256 (some 80 KB): a vector of them, doubling, held up to twice the units
  // open at once, and left the arrays it outgrew as holes in the heap.
  BlockVector<Unit, 3, 8> units_;
  std::vector<uint32_t> free_units_;
  std::vector<uint32_t> next_free_;                       // FitSlot's scratch
  std::vector<LocalShared<RegionRecord>> spare_records_;  // Recycle
  std::vector<const RegionRecord*> known_records_;        // KnowledgeAbout's
  uint64_t candidates_ = 0;
  uint64_t serial_ = 0;
  uint64_t fed_ = 0;
  EventIndex now_ = 0;  // the event fed last
};

PairSearch::PairSearch(const std::vector<std::vector<const Pattern*>>& groups,
                       const std::vector<LocationInfo>& infos,
                       const std::vector<AccessGuards>& guards, HeldLocks* locks,
                       uint32_t max_per_site)
    : impl_(std::make_unique<Impl>(groups, infos, guards, locks, max_per_site)) {}
PairSearch::~PairSearch() = default;
PairSearch::PairSearch(PairSearch&&) noexcept = default;

void PairSearch::Visit(EventIndex i, const Event& e, LocationId l, AccessClassLookup* cls,
                       uint32_t lockset, PorStep step, RegionId region, const PorClocks& por) {
  impl_->Visit(i, e, l, cls, lockset, step, region, por);
}

bool PairSearch::AsksClasses(LocationId l) const {
  return impl_->AsksClasses(l);
}

void PairSearch::Seal(LocationId l) {
  impl_->Seal(l);
}

std::vector<std::vector<Finding>> PairSearch::Finish(const std::vector<ThreadInfo>& threads,
                                                     PatternSearchStats* stats) {
  return impl_->Finish(threads, stats);
}

}  // namespace pecan
