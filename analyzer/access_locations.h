// LocationTable maps every memory access to the location (variable) it touches: byte ranges with
// an allocation version, merged where they overlap, kept only when some pattern can use them.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

using LocationId = uint32_t;
inline constexpr LocationId kNoLocation = ~LocationId{0};

struct LocationInfo {
  uint64_t begin = 0;    // first byte
  uint64_t end = 0;      // one past the last byte
  uint32_t version = 0;  // allocation version: 0 before any FREE/ALLOC of these bytes
  // Every access covers exactly [begin, end) (the common case: one variable, one access size),
  // so any two of them overlap; otherwise two accesses conflict only if their ranges overlap.
  bool single_range = true;
  bool shared = false;   // accessed (or freed) by more than one thread
  bool written = false;  // some access writes, or a FREE ends the bytes' life (see Frees)
  bool read = false;     // some access reads (READ or ATOMIC_LOAD)
};

// The locks and threads of a location's accesses, as a first pass over the whole trace saw them
// (KeptAccesses::TrackGuards): the streaming atomicity searches tell from them which units nothing
// can ever complete. A region access is one made inside a lock region (RegionMode::kLocks: while
// its thread holds a lock or is inside REGION_BEGIN..REGION_END).
struct AccessGuards {
  static constexpr ThreadId kNone = ~ThreadId{0};
  uint64_t guard = 0;              // a lock every access held in write mode (0: none known)
  uint64_t region_guard = 0;       // a lock every region access held in write mode (0: none known)
  ThreadId region_thread = kNone;  // the first thread that made a region access (kNone: none)
  bool region_many_threads = false;  // another thread made one too
  // Some region access is in a region where its thread's lock set changes (a lock taken or given
  // back between the region's first event and its last).
  bool locks_change_in_region = false;
  // Some region access is in a region that spans more than WindowPrefilter::kSlots events of its
  // thread (from the event that opens it to the one that closes it, or to the thread's last).
  bool long_region = false;
  // Whether a thread other than `t` makes a region access.
  bool RegionAccessByOtherThan(ThreadId t) const {
    return region_many_threads || (region_thread != kNone && region_thread != t);
  }
  // Whether `lock` (guard or region_guard) is held all through the window of every unit with a
  // region access to the location: the slots between two region accesses of one region, where
  // the lock set is the region accesses'. Then no access that holds it (every access or every
  // region access to the location, in write mode) can move into such a window.
  bool WindowsHold(uint64_t lock) const { return lock != 0 && !locks_change_in_region; }
  // Whether, moreover, each such window spans at most WindowPrefilter::kSlots slots: then its
  // prefilter applies, with one lock set that holds `lock`, and skips every class that holds it
  // in write mode (WindowPrefilter::SkipsEveryClassHolding).
  bool PrefilterSkipsHolding(uint64_t lock) const { return WindowsHold(lock) && !long_region; }
};

// What a pattern needs of a location to bind one of its variables there (analysis.cpp derives
// one per variable of each selected pattern).
struct LocationNeed {
  bool shared = true;   // the variable's events are of two threads or more
  bool written = true;  // one of them writes
  bool read = false;    // one of them reads
  bool operator==(const LocationNeed&) const = default;
};

// The locations to keep: those meeting at least one need. The default is the need of every
// built-in pattern (shared and written), the pre-filter of PECAN section 5.1.
struct LocationFilter {
  std::vector<LocationNeed> needs{LocationNeed{}};
  bool Keeps(const LocationInfo& info) const;
};

// A location is a maximal set of accesses whose byte ranges overlap (transitively) within one
// allocation version. FREE and ALLOC start a new version of their range, so a reused address is
// a new location. A FREE is a write of its whole block to the locations it overlaps in the
// version it ends and in the one it starts (accesses after the free, before the bytes are
// allocated again): it is listed beside their accesses (Frees), not as one, because one block
// spans many locations (its fields) and each access belongs to exactly one. Locations no pattern
// can use are dropped (by default those accessed by one thread only, or only read). Access sizes of
// 0 count as 1 byte. Merging is transitive, so two accesses of one location need not overlap:
// pairing checks the ranges (AnalysisContext::Overlap) unless the location is single_range.
class LocationTable {
 public:
  explicit LocationTable(const Trace& trace, const LocationFilter& filter = {});
  ~LocationTable();
  LocationTable(LocationTable&&) noexcept;

  // The location of access i, or kNoLocation (not an access, or its location was dropped).
  LocationId Of(EventIndex i) const { return of_[i]; }
  size_t Count() const;  // kept locations; ids are 0 .. Count()-1
  const LocationInfo& Info(LocationId l) const;
  // The accesses to l, in trace order.
  const EventIndex* AccessesBegin(LocationId l) const;
  const EventIndex* AccessesEnd(LocationId l) const;
  uint64_t AccessCount(LocationId l) const { return AccessesEnd(l) - AccessesBegin(l); }
  // The FREE events whose block overlaps l's bytes (before or after them in the trace), in trace
  // order. Of() is kNoLocation for a FREE.
  const EventIndex* FreesBegin(LocationId l) const;
  const EventIndex* FreesEnd(LocationId l) const;
  // Every distinct location seen, kept or not (for statistics).
  uint64_t AllLocations() const;
  // Accesses to kept locations.
  uint64_t SharedAccesses() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  const LocationId* of_ = nullptr;  // view into impl_ for the inline Of()
};

// The table's choice of accesses for a trace read from a file chunk by chunk, without the trace
// in memory: Scan every event once, Decide, then ask Keeps (or Locate) of every event again, in
// the same order. An access is kept when its location is (the table built from the kept events
// alone has the same locations and keeps all of them); every other event is kept. Memory, not
// per event: while scanning, one entry per distinct (address, size, allocation version); after
// Decide, the kept locations, the last access of each of their (address, size, version) keys
// and the allocation versions painted so far.
class KeptAccesses {
 public:
  explicit KeptAccesses(const LocationFilter& filter = {});
  ~KeptAccesses();
  KeptAccesses(const KeptAccesses&) = delete;
  KeptAccesses& operator=(const KeptAccesses&) = delete;

  // Inline: the first pass calls it for every event, and most need no more than a look at their
  // kind (held locks matter only to the access classes).
  void Scan(EventIndex i, const Event& e) { Follow(i, e, Key(i, e)); }
  // Scan in two stages, for a pass over two threads (ForEachEventInTwoStages): Key of every
  // event, in order, on one thread, and Follow of every event with Key's note, in order, on
  // another. Key uses the table of keys alone, and Follow everything else: Decide after both.
  static constexpr uint32_t kNoKey = ~0u;
  static constexpr ThreadId kOneThread = ~ThreadId{0};  // names no thread (AccessGuards::kNone)
  struct ScanNote {
    uint32_t key = kNoKey;  // of an access: its (address, size, allocation version)'s number
    // With two threads or more on the key so far (this access's too): the first; else kOneThread.
    ThreadId first_thread = kOneThread;
  };
  ScanNote Key(EventIndex i, const Event& e) {
    return KeyedKind(e.kind) ? KeyAccess(i, e) : ScanNote{};
  }
  void Follow(EventIndex i, const Event& e, ScanNote note) {
    if (track_guards_) CountThreadEvent(e.thread);
    if (KeyedKind(e.kind)) {
      FollowAccess(i, e, note);
    } else if (follow_scopes_ &&
               (IsAcquire(e.kind) || IsRelease(e.kind) || e.kind == EventKind::kRegionBegin ||
                e.kind == EventKind::kRegionEnd)) {
      ScanScopeEvent(i, e);
    } else if (track_classes_ && (e.kind == EventKind::kFork || e.kind == EventKind::kJoin ||
                                  e.kind == EventKind::kThreadEnd)) {
      ScanThreadEvent(e);
    }
  }
  // Before the first Scan: also follow the access classes (thread, site, kind, lock addresses
  // held, bytes) for LastNewClasses. Memory: one entry per distinct class and address key.
  void TrackClasses();
  // Before the first Scan: also note each location's guards (GuardsOf). Memory: 32 bytes per
  // address key.
  void TrackGuards();
  void Decide();
  bool Keeps(EventIndex i, const Event& e);
  // Instead of Keeps, for a reader that needs the location: the LocationId the table would give
  // access `i` (kNoLocation: not an access, or its location is dropped). Ids and the accessors
  // below are LocationTable's (Info, FreesBegin, AllLocations).
  // Inline: the second pass calls it for every event, and most accesses find their answer among
  // the recent ones.
  LocationId Locate(EventIndex i, const Event& e) {
    if (IsAccess(e.kind)) {
      const Located& known = located_[LocatedSlot(e.addr)];
      if (e.addr - known.first < known.bytes && (known.epoch == epoch_ || known.epoch == kAlways))
        return known.location;
    } else if (e.kind != EventKind::kFree && e.kind != EventKind::kAlloc) {
      return kNoLocation;
    }
    return LocateMissed(i, e);
  }
  const std::vector<LocationInfo>& Locations() const;  // after Decide, by LocationId
  // Each FREE with a kept location its block overlaps (LocationTable::FreesBegin), by event.
  const std::vector<std::pair<EventIndex, LocationId>>& Frees() const;
  // Per kept location: its last access or FREE (no event after it uses the location).
  const std::vector<EventIndex>& LastUses() const;
  // Per kept location: its keys, the distinct (address, size, allocation version)s of its
  // accesses (a variable has one; a buffer walked a byte at a time, one per byte).
  const std::vector<uint32_t>& KeyCounts() const;
  // Per kept location: its last access (FREEs of its bytes may come after it).
  const std::vector<EventIndex>& LastAccesses() const;
  // Whether access `i` of a kept location is the last to its exact bytes (address and size) in
  // their allocation version: no later access touches just those bytes.
  bool IsLastAccessOfBytes(EventIndex i) const;
  uint64_t AllLocations() const;  // after Decide: every location, kept or not
  // With TrackClasses, per kept location: an event at or after which no access makes a new access
  // class of it (one of a thread, site, kind, set of lock addresses held and bytes not seen yet)
  // that could complete a unit of an atomic region. With TrackGuards too, on a location only one
  // thread accesses inside regions, a class of that thread, or of a thread that has joined it
  // after its end (directly, or through the joins and forks before it), does not count: it is
  // ordered after every unit's window or is the units' own thread.
  const std::vector<EventIndex>& LastNewClasses() const;
  // With TrackGuards, per kept location.
  const std::vector<AccessGuards>& GuardsOf() const;

 private:
  // An access, FREE or ALLOC (a FREE or ALLOC starts a new version of its keys).
  static bool KeyedKind(EventKind kind) {
    return IsAccess(kind) || kind == EventKind::kFree || kind == EventKind::kAlloc;
  }
  // An access, FREE or ALLOC: its key (Key), and what the others follow (Follow).
  ScanNote KeyAccess(EventIndex i, const Event& e);
  void FollowAccess(EventIndex i, const Event& e, ScanNote note);
  // With TrackGuards, every event: its thread's events so far (how long its regions last).
  void CountThreadEvent(ThreadId t) {
    if (t >= thread_events_.size()) thread_events_.resize(size_t{t} + 1, 0);
    ++thread_events_[t];
  }
  // A lock event, or REGION_BEGIN or REGION_END: the scopes the classes and regions follow.
  void ScanScopeEvent(EventIndex i, const Event& e);
  void NoteGuards(uint32_t key, const Event& e);
  bool Annotated(ThreadId t) const;  // inside REGION_BEGIN..REGION_END
  void FollowRegion(ThreadId t, bool open_before, uint32_t set_before);
  // Thread t's open region ends (or the trace does): if it was long, its keys are marked
  // (AccessGuards::long_region).
  void EndRegion(ThreadId t);
  // A FORK, JOIN or THREAD_END: which threads' ends each thread knows (LastNewClasses).
  void ScanThreadEvent(const Event& e);
  // Whether a class of `thread` on `key` could complete no unit of the key's region thread
  // (`now`: a class made now, with what the thread knows now; else one made earlier).
  bool CompletesNoUnit(uint32_t key, ThreadId thread, bool now = true) const;
  // Locate for a FREE, an ALLOC or an access whose address has no recent answer.
  LocationId LocateMissed(EventIndex i, const Event& e);

  // Locate's recent answers by 8-byte word, each for the bytes of its word that have it (one
  // location's in one allocation version). The location of an address depends only on its
  // allocation version: a FREE or ALLOC forgets the answers for its bytes, or all of them
  // (`epoch_`) for a block of over kForgetBytes. An address outside the kept locations' bytes
  // has its answer always (kAlways).
  static constexpr uint64_t kAlways = ~uint64_t{0};
  static constexpr uint64_t kForgetBytes = 4096;
  // The answer for the bytes [first, first + bytes), all of one 8-byte word.
  struct Located {
    uint64_t first = 0;
    uint64_t epoch = 0;
    LocationId location = kNoLocation;
    uint32_t bytes = 0;
  };
  // The slot of an address: the bytes of one 8-byte word share one, and the words of a 32 KiB
  // span have distinct ones (a block's bytes are forgotten slot by slot).
  static size_t LocatedSlot(uint64_t addr) {
    return ((addr >> 3) ^ ((addr >> 15) * 0x9E3779B97F4A7C15ull >> 52)) & 4095;
  }
  void Forget(uint64_t begin, uint64_t end);
  uint64_t epoch_ = 0;
  std::vector<Located> located_ = std::vector<Located>(4096);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool track_classes_ = false;
  bool track_guards_ = false;
  std::vector<uint64_t> thread_events_;  // CountThreadEvent's, per thread
  bool follow_scopes_ = false;  // either: lock events (and annotations) go to ScanScopeEvent
};

}  // namespace pecan
