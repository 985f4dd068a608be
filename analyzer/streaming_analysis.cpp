// AnalyzeStreaming(): the two passes over the file, and the searches fed in the second.
#include "analyzer/streaming_analysis.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <sched.h>

#include "analyzer/access_class_ids.h"
#include "analyzer/access_locations.h"
#include "analyzer/atomic_regions.h"
#include "analyzer/builtin_patterns.h"
#include "analyzer/deadlock_prediction.h"
#include "analyzer/held_locks.h"
#include "analyzer/huge_pages.h"
#include "analyzer/pattern_search.h"
#include "analyzer/por_clocks.h"
#include "analyzer/race_shards.h"
#include "analyzer/streaming_pairs.h"
#include "analyzer/streaming_races.h"
#include "analyzer/streaming_units.h"
#include "trace_format/trace_reader.h"
#include "trace_format/two_stage_pass.h"

namespace pecan {
namespace {

using Clock = std::chrono::steady_clock;

// Events between two looks at the heap's growth (HugePageHeap::Follow), in both passes.
constexpr EventIndex kFollowHeapEvery = EventIndex{1} << 16;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Feeds a lock request to the lock-order graph: called before the held locks and the POR clocks
// see the event, so they are the ones in force at it.
void AddLockRequest(EventIndex i, const Event& e, const HeldLocks& locks, const PorClocks& por,
                    uint32_t local, std::vector<HeldLockAt>* held, LockOrderGraph* graph) {
  const std::vector<HeldLocks::Hold>& holds = locks.Holds(e.thread);
  if (holds.empty()) return;
  held->clear();
  for (const HeldLocks::Hold& h : holds)
    held->push_back(HeldLockAt{h.lock, h.read_mode, h.acquired_at, h.site});
  const LockRequest request{i,      e.thread, e.kind, e.flags,
                            e.addr, e.site,   local,  locks.Current(e.thread)};
  graph->AddRequest(request, *held, [&] { return por.CurrentClock(e.thread); });
}

// The threads the race search is split over: AnalysisOptions::threads (at most 64, RaceShards'
// bound), or one per core this process may run on, at most kDefaultShards: every shard follows
// every event's clocks and locks, so past a few of them the split gains little.
constexpr unsigned kDefaultShards = 4;
// A location of this many keys or more is a buffer, whose race search the split deals out; the
// split needs this many keys dealt to the other threads.
constexpr uint32_t kBufferKeys = 64;
constexpr uint64_t kSplitKeys = 4096;
// A key dealt to this thread counts this many times (it has other work: see the deal below).
constexpr uint64_t kHereWeight = 2;
unsigned RaceShardCount(const AnalysisOptions& options) {
  if (options.threads != 0) return std::min(options.threads, 64u);
  cpu_set_t cpus;
  const unsigned cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0
                             ? static_cast<unsigned>(CPU_COUNT(&cpus))
                             : std::thread::hardware_concurrency();
  return std::clamp(cores, 1u, kDefaultShards);
}

}  // namespace

bool Streams(const AnalysisOptions& options) {
  const std::vector<Pattern> patterns = SelectPatterns(options.patterns);
  const bool deadlocks = SelectsDeadlocks(options.patterns);
  // Units are regions of locks and annotations (function regions need a pass of their own), and
  // built-in (a user pattern's search has a work bound the streaming one does not count).
  return (deadlocks || !patterns.empty()) &&
         std::all_of(patterns.begin(), patterns.end(), [&](const Pattern& p) {
           return IsRaceShaped(p) || ((IsUnitShaped(p) || IsPairShaped(p)) && p.builtin &&
                                      options.regions == RegionMode::kLocks);
         });
}

AnalysisResult AnalyzeStreaming(const std::string& path, const AnalysisOptions& options,
                                bool show_progress, bool log_warnings) {
  const Clock::time_point start = Clock::now();
  const std::vector<Pattern> patterns = SelectPatterns(options.patterns);
  const unsigned shard_count = RaceShardCount(options);
  const bool split_races =
      shard_count >= 2 && std::any_of(patterns.begin(), patterns.end(), IsRaceShaped);
  // With two threads or more, each pass reads the trace on a thread of its own, which also keys
  // the accesses in the first (KeptAccesses::Key: this one follows the rest) and locates them in
  // the second (ForEachEventInTwoStages). The race search may split too (split_races).
  const bool two_stages = shard_count >= 2;
  if (two_stages) ShareOneHeap();
  HugePageHeap heap;
  const bool deadlocks = SelectsDeadlocks(options.patterns);
  KeptAccesses kept(LocationFilterFor(options));
  // The atomicity search keeps a unit for the access classes that appear after it: it needs to
  // know when the last one did.
  if (std::any_of(patterns.begin(), patterns.end(), IsUnitShaped)) kept.TrackClasses();
  // The atomicity searches keep only the units something can complete, and the race searches
  // follow no classes where every access holds a lock.
  if (!patterns.empty()) kept.TrackGuards();
  SemaphoreCounts semaphores;
  uint64_t events = 0;
  uint32_t thread_count = 0;
  std::vector<EventIndex> final_event;  // per thread: its last event
  std::vector<ThreadId> forker;         // per thread: who forks it
  {
    TraceReader reader(path, /*log_warnings=*/false);  // the second pass warns, once
    auto follow = [&](EventIndex i, const Event& e, KeptAccesses::ScanNote note) {
      if (i % kFollowHeapEvery == 0) heap.Follow();
      kept.Follow(i, e, note);
      if (e.kind == EventKind::kSemPost || e.kind == EventKind::kSemWait) semaphores.Scan(e);
      // A fork before its child's first event (so forkers form no
      // cycle, even in a damaged trace).
      const bool started = e.addr < final_event.size() && final_event[e.addr] != ~EventIndex{0};
      if (e.kind == EventKind::kFork && e.addr < (uint64_t{1} << 24) && !started) {
        if (e.addr >= forker.size()) forker.resize(e.addr + 1, kNoThread);
        if (forker[e.addr] == kNoThread) forker[e.addr] = e.thread;
      }
      if (e.thread >= final_event.size()) final_event.resize(e.thread + 1, ~EventIndex{0});
      final_event[e.thread] = i;
    };
    const std::string label = "reading the trace (1 of 2: its locations)";
    events = ForEachEventInStages<KeptAccesses::ScanNote>(
        two_stages, reader, show_progress, label, 0,
        [&](EventIndex i, const Event& e) { return kept.Key(i, e); }, follow);
    thread_count = std::max<uint32_t>(static_cast<uint32_t>(final_event.size()),
                                      static_cast<uint32_t>(reader.threads().size()));
  }
  kept.Decide();
  const std::vector<LocationInfo>& infos = kept.Locations();
  const std::vector<std::pair<EventIndex, LocationId>>& frees = kept.Frees();

  // Patterns of one shape are searched together (Analyze's groups); a mask bit per pattern, so
  // groups wider than a mask are searched in parts (as SearchPatternGroup does).
  const std::vector<std::vector<const Pattern*>> groups = GroupByShape(patterns);
  HeldLocks locks;
  const std::vector<uint8_t> race_guarded = RaceGuardedLocations(kept.GuardsOf(), frees);
  std::vector<std::vector<const Pattern*>> race_groups;  // a race search each, made below
  std::vector<UnitSearch> unit_searches;
  std::vector<std::vector<const Pattern*>> pair_groups;  // one search serves them all
  enum class Shape { kRace, kUnit, kPair };
  std::vector<std::pair<Shape, size_t>> parts;  // (its search's shape, its index), in group order
  constexpr size_t kMaxGroup = 32;
  for (const auto& group : groups) {
    for (size_t first = 0; first < group.size(); first += kMaxGroup) {
      const std::vector<const Pattern*> part(
          group.begin() + static_cast<std::ptrdiff_t>(first),
          group.begin() + static_cast<std::ptrdiff_t>(std::min(group.size(), first + kMaxGroup)));
      if (IsRaceShaped(*part.front())) {
        parts.emplace_back(Shape::kRace, race_groups.size());
        race_groups.push_back(part);
      } else if (IsUnitShaped(*part.front())) {
        parts.emplace_back(Shape::kUnit, unit_searches.size());
        unit_searches.emplace_back(part, infos, kept.LastNewClasses(), kept.GuardsOf(), &locks,
                                   options.max_per_site);
      } else {
        parts.emplace_back(Shape::kPair, pair_groups.size());
        pair_groups.push_back(part);
      }
    }
  }
  std::vector<PairSearch> pair_searches;
  if (!pair_groups.empty())
    pair_searches.emplace_back(pair_groups, infos, kept.GuardsOf(), &locks, options.max_per_site);
  AccessClassIds classes(infos.size());  // the accesses' classes, numbered as searches ask
  RegionScopes regions(RegionMode::kLocks, thread_count);
  LockOrderGraph lock_order;
  std::vector<HeldLockAt> held;
  forker.resize(thread_count, kNoThread);

  // Locations in the order their accesses end, and in the order their lives end: each is sealed
  // after its last access and retired after its last use (an access or a FREE).
  auto by = [&](const std::vector<EventIndex>& when) {
    std::vector<LocationId> order(infos.size());
    std::iota(order.begin(), order.end(), LocationId{0});
    std::sort(order.begin(), order.end(),
              [&](LocationId a, LocationId b) { return when[a] < when[b]; });
    return order;
  };
  const std::vector<EventIndex>& last_accesses = kept.LastAccesses();
  const std::vector<EventIndex>& last_uses = kept.LastUses();
  const std::vector<LocationId> sealing = by(last_accesses);
  const std::vector<LocationId> retiring = by(last_uses);
  // The race searches split by location over threads, where there are cores for them. The
  // locations whose classes an atomic-region search asks for stay with the searches here, which
  // number them (AccessClassLookup::Provide). So do those of little work: where every access
  // holds one lock (RaceGuardedLocations: no classes), or that have few keys (a variable, not a
  // buffer: a class per thread, site, kind and lock set, not also per byte). The buffers are dealt
  // out to all the threads, this one too (with them all on the other threads, this one waited:
  // pcompress 1 MiB took 10% longer), each to the one with the fewest keys so far, where a key
  // dealt here counts kHereWeight times: this thread also reads and decodes the events, locates
  // the accesses, feeds the others and searches the atomic regions (dealt evenly, pcompress 8 MiB's
  // other thread spent 12 s searching while this one spent 23 s in the pass). With too few
  // keys to deal out there is no split: the other threads would follow every event for little
  // (shardmap's few small arrays split so took 10-25% longer, and 10 MB more for the threads'
  // copies of its lock sets). A number of threads asked for (AnalysisOptions::threads) deals out
  // every location no atomic-region search asks classes of.
  std::optional<RaceShards> shards;
  std::vector<uint8_t> owner;  // per location, its shard (0: here)
  if (split_races) {
    const std::vector<uint32_t>& key_counts = kept.KeyCounts();
    owner.assign(infos.size(), 0);
    std::vector<uint64_t> load(shard_count, 0);  // keys dealt to each shard (here: weighed)
    for (LocationId l = 0; l < infos.size(); ++l) {
      const bool asked = std::any_of(unit_searches.begin(), unit_searches.end(),
                                     [&](const UnitSearch& u) { return u.AsksClasses(l); }) ||
                         std::any_of(pair_searches.begin(), pair_searches.end(),
                                     [&](const PairSearch& p) { return p.AsksClasses(l); });
      if (asked) continue;
      if (options.threads == 0 && (race_guarded[l] || key_counts[l] < kBufferKeys)) continue;
      const auto least = std::min_element(load.begin(), load.end());
      owner[l] = static_cast<uint8_t>(least - load.begin());
      *least += key_counts[l] * (least == load.begin() ? kHereWeight : 1);
    }
    const uint64_t dealt = std::accumulate(load.begin() + 1, load.end(), uint64_t{0});
    if (dealt == 0 || (options.threads == 0 && dealt < kSplitKeys))
      std::vector<uint8_t>().swap(owner);
  }
  // Whether this thread's race searches follow location l (with a split, they keep state for
  // their locations only).
  auto here = [&](LocationId l) { return owner.empty() || owner[l] == 0; };
  std::vector<RaceSearch> searches;
  for (const auto& group : race_groups)
    searches.emplace_back(group, infos.size(), race_guarded, &locks, options.max_per_site,
                          owner.empty() ? nullptr : &owner, 0);
  std::unordered_map<uint64_t, uint64_t> semaphore_initial = semaphores.Initial();
  if (!owner.empty()) {
    RaceShardInputs in;
    in.groups = race_groups;
    in.owner = &owner;
    in.infos = &infos;
    in.guarded = &race_guarded;
    in.frees = &frees;
    in.last_accesses = &last_accesses;
    in.last_uses = &last_uses;
    in.sealing = &sealing;
    in.retiring = &retiring;
    in.thread_count = thread_count;
    in.semaphore_initial = semaphore_initial;
    in.final_event = final_event;
    in.forker = forker;
    in.max_per_site = options.max_per_site;
    shards.emplace(std::move(in), shard_count);
  }
  PorClocks por(thread_count, std::move(semaphore_initial), std::move(final_event),
                /*record=*/false);
  por.SetForkers(std::move(forker));
  size_t next_sealed = 0;
  size_t next_retired = 0;
  size_t next_free = 0;
  // The events at which the next of each comes, so that the others cost one comparison.
  constexpr EventIndex kNever = ~EventIndex{0};
  auto due = [&](const std::vector<LocationId>& order, const std::vector<EventIndex>& when,
                 size_t next) { return next < order.size() ? when[order[next]] : kNever; };
  auto free_due = [&](size_t next) { return next < frees.size() ? frees[next].first : kNever; };
  EventIndex next_sealed_at = due(sealing, last_accesses, 0);
  EventIndex next_retired_at = due(retiring, last_uses, 0);
  EventIndex next_free_at = free_due(0);
  std::vector<uint32_t> thread_events(thread_count, 0);  // events of each thread fed so far
  std::vector<std::string> what;
  if (!searches.empty()) what.push_back("races");
  if (!unit_searches.empty() || !pair_searches.empty()) what.push_back("atomic regions");
  if (deadlocks) what.push_back("deadlocks");
  std::string label = "analyzing (2 of 2: ";
  for (size_t k = 0; k < what.size(); ++k)
    label += (k == 0 ? "" : k + 1 == what.size() ? " and " : ", ") + what[k];
  label += ")";
  TraceReader reader(path, log_warnings);
  // Each event's location, and for an access whether it is the last to its bytes: with two
  // threads or more, found by the reading thread (Locate's recent answers are its own).
  struct Located {
    LocationId l;
    bool last;
  };
  auto locate = [&](EventIndex i, const Event& e) {
    const LocationId l = kept.Locate(i, e);
    return Located{l, l != kNoLocation && kept.IsLastAccessOfBytes(i)};
  };
  auto visit = [&](EventIndex i, const Event& e, Located at) {
    if (i % kFollowHeapEvery == 0) heap.Follow();
    const LocationId l = at.l;
    if (IsAccess(e.kind) && l == kNoLocation) return;  // an access no pattern can use
    const uint32_t lockset = locks.Current(e.thread);
    if (deadlocks && (e.kind == EventKind::kLock || e.kind == EventKind::kReadLock))
      AddLockRequest(i, e, locks, por, thread_events[e.thread], &held, &lock_order);
    ++thread_events[e.thread];
    const PorStep step = por.Visit(i, e);
    const bool last = at.last;
    std::optional<AccessClassLookup> cls;  // numbered once a search asks
    if (l != kNoLocation) {
      cls.emplace(&classes, l, e, lockset, infos[l], last);
      if (here(l)) {
        for (RaceSearch& search : searches)
          search.Access(i, e, l, infos[l], *cls, lockset, step.local, last, por);
      }
    }
    if (shards) shards->Feed(i, e, l, last);
    if (!unit_searches.empty() || !pair_searches.empty()) {
      const RegionId region = regions.Visit(e.thread, e.kind, e.addr);
      const bool access = IsAccess(e.kind) && cls;
      const LocationId at = access ? l : kNoLocation;
      AccessClassLookup* const lookup = access ? &*cls : nullptr;
      for (UnitSearch& search : unit_searches)
        search.Visit(i, e, at, lookup, lockset, step, region, last, por);
      for (PairSearch& search : pair_searches)
        search.Visit(i, e, at, lookup, lockset, step, region, por);
    }
    if (i >= next_free_at) {
      for (; next_free < frees.size() && frees[next_free].first < i; ++next_free) {
      }
      for (; next_free < frees.size() && frees[next_free].first == i; ++next_free) {
        if (!here(frees[next_free].second)) continue;
        for (RaceSearch& search : searches)
          search.Free(i, e, frees[next_free].second, lockset, step.local, por);
      }
      next_free_at = free_due(next_free);
    }
    locks.Visit(i, e);
    if (i >= next_sealed_at) {
      for (; next_sealed < sealing.size() && last_accesses[sealing[next_sealed]] <= i;
           ++next_sealed) {
        if (here(sealing[next_sealed]))
          for (RaceSearch& search : searches) search.Seal(sealing[next_sealed]);
        for (UnitSearch& search : unit_searches) search.Seal(sealing[next_sealed]);
        for (PairSearch& search : pair_searches) search.Seal(sealing[next_sealed]);
        classes.Seal(sealing[next_sealed]);
      }
      next_sealed_at = due(sealing, last_accesses, next_sealed);
    }
    if (i >= next_retired_at) {
      for (; next_retired < retiring.size() && last_uses[retiring[next_retired]] <= i;
           ++next_retired) {
        if (here(retiring[next_retired]))
          for (RaceSearch& search : searches) search.Retire(retiring[next_retired]);
      }
      next_retired_at = due(retiring, last_uses, next_retired);
    }
  };
  // What the searches read first of a location an access soon comes to, asked of the cache
  // kAhead events before (ForEachEventInStages): where there are thousands of locations, each
  // of their first reads is a cache miss (shardmap 310 K: the race search's first read of a
  // location took 15% of the CPU). Not where there are fewer: with one thread, `ahead` has each
  // batch's locations found before any of its events is visited, and that costs more than it
  // gains on a few locations (the generated 10^7 trace: 1.04 times the CPU).
  constexpr size_t kPrefetchFromLocations = 4096;
  const std::vector<AccessGuards>& guards = kept.GuardsOf();
  auto ahead = [&](const Located& at) {
    if (at.l == kNoLocation) return;
    __builtin_prefetch(&infos[at.l]);
    if (!unit_searches.empty() || !pair_searches.empty()) {
      __builtin_prefetch(&guards[at.l]);
      classes.Prefetch(at.l);
    }
    if (here(at.l))
      for (const RaceSearch& search : searches) search.Prefetch(at.l);
  };
  const uint64_t read = infos.size() >= kPrefetchFromLocations
                            ? ForEachEventInStages<Located>(two_stages, reader, show_progress,
                                                            label, events, locate, visit, ahead)
                            : ForEachEventInStages<Located>(two_stages, reader, show_progress,
                                                            label, events, locate, visit);

  AnalysisResult result;
  result.stats.events = read;
  for (const LocationInfo& info : infos)
    result.stats.shared_locations += info.shared && info.written;
  PatternSearchStats stats;
  if (shards) shards->Finish(&searches);
  std::vector<std::vector<Finding>> pair_findings;
  if (!pair_searches.empty())
    pair_findings = pair_searches.front().Finish(reader.threads(), &stats);
  for (const auto& [shape, index] : parts) {
    std::vector<Finding> found = shape == Shape::kRace ? searches[index].Finish(&stats)
                                 : shape == Shape::kUnit
                                     ? unit_searches[index].Finish(reader.threads(), &stats)
                                     : std::move(pair_findings[index]);
    for (Finding& f : found) result.findings.push_back(std::move(f));
  }
  result.stats.candidates = stats.candidates;
  result.stats.capped = stats.capped;
  // One pass searches every family: each is given its time.
  std::vector<std::string> families;
  for (const Pattern& p : patterns) {
    if (std::find(families.begin(), families.end(), p.name) == families.end()) {
      families.push_back(p.name);
      result.stats.seconds_by_family.emplace_back(p.name, SecondsSince(start));
    }
  }
  if (deadlocks) {
    const Clock::time_point deadlock_start = Clock::now();
    for (Finding& f :
         lock_order.FindDeadlocks([&](uint32_t a, uint32_t b) { return locks.Exclusive(a, b); }))
      result.findings.push_back(std::move(f));
    result.stats.seconds_by_family.emplace_back("deadlock", SecondsSince(deadlock_start));
  }
  result.stats.seconds_total = SecondsSince(start);
  return result;
}

}  // namespace pecan
