// Analyze(): builds the indices once, runs every selected pattern through the same engine, and
// merges, names and times the findings.
#include "analyzer/analysis.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "analyzer/analysis_context.h"
#include "analyzer/builtin_patterns.h"
#include "analyzer/deadlock_prediction.h"
#include "analyzer/finding_id.h"
#include "analyzer/pattern_search.h"
#include "analyzer/suppressions.h"
#include "analyzer/symbolizer.h"
#include "trace_format/progress.h"

namespace pecan {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A single-location atomic-set violation with the same sites and access kinds as an atomicity
// violation is the same anomaly; when both families run it is reported once, as atomicity.
void DropAsvDuplicatesOfAtomicity(const Trace& trace, std::vector<Finding>* findings) {
  auto signature = [&](const Finding& f) {
    std::vector<uint64_t> s;
    for (EventIndex e : f.events) {
      s.push_back(trace.site[e]);
      s.push_back(IsWriteAccess(trace.kind[e]) ? 1 : 0);
    }
    return s;
  };
  std::set<std::vector<uint64_t>> atomicity;
  for (const Finding& f : *findings) {
    if (f.pattern == "atomicity") atomicity.insert(signature(f));
  }
  if (atomicity.empty()) return;
  std::erase_if(*findings, [&](const Finding& f) {
    return f.pattern == "asv" && f.events.size() == 3 && atomicity.count(signature(f)) > 0;
  });
}

// The locations the selected patterns can use: PECAN section 5.1's pre-filter ("drop locations
// touched by one thread only, or read only"), derived per pattern variable, so a user pattern
// with a variable of one thread (a flag its own thread checks) still finds that variable. For
// the built-ins this is exactly the classic filter.
LocationFilter FilterFor(const std::vector<Pattern>& patterns) {
  LocationFilter filter;
  filter.needs.clear();
  for (const Pattern& p : patterns) {
    for (uint32_t v = 0; v < p.variable_count; ++v) {
      std::set<uint32_t> threads;
      LocationNeed need{false, false, false};
      for (size_t pos = 0; pos < p.size(); ++pos) {
        if (p.variable[pos] != v) continue;
        threads.insert(p.thread[pos]);
        need.written |= p.access[pos] == AccessMatch::kWrite;
        need.read |= p.access[pos] == AccessMatch::kRead;
      }
      need.shared = threads.size() > 1;
      if (std::find(filter.needs.begin(), filter.needs.end(), need) == filter.needs.end())
        filter.needs.push_back(need);
    }
  }
  return filter;
}

}  // namespace

LocationFilter LocationFilterFor(const AnalysisOptions& options) {
  return FilterFor(SelectPatterns(options.patterns));
}

AnalysisResult Analyze(const Trace& trace, const AnalysisOptions& options) {
  const Clock::time_point start = Clock::now();
  const std::vector<Pattern> patterns = SelectPatterns(options.patterns);
  const bool deadlocks = SelectsDeadlocks(options.patterns);
  AnalysisResult result;
  result.stats.events = trace.RecordedEvents();

  std::unique_ptr<ProgressReporter> progress;
  // Progress: the index counts as one step, each pattern as one, deadlocks as one.
  if (options.progress) {
    progress = std::make_unique<ProgressReporter>("analyzing", patterns.size() + 1 + deadlocks);
    // An index build or one pattern can take minutes on a big trace: the time taken shows it
    // is alive, and a log gets a line every 30 s.
    progress->KeepAlive(kKeepAliveLogSeconds);
    progress->Update(0, "indexing " + std::to_string(trace.size_events()) + " events");
  }

  const Clock::time_point index_start = Clock::now();
  const AnalysisContext context(trace, options.regions, options.threads != 1, FilterFor(patterns));
  // Shared and written ones, as the classic pre-filter counts (user patterns may keep more).
  for (LocationId l = 0; l < context.locations.Count(); ++l) {
    const LocationInfo& info = context.locations.Info(l);
    result.stats.shared_locations += info.shared && info.written;
  }
  result.stats.seconds_by_family.emplace_back("index", SecondsSince(index_start));
  if (progress) progress->Update(1, "searching " + std::to_string(patterns.size()) + " patterns");

  // Patterns of one shape share one enumeration; its time is split among the families in it
  // by their number of patterns.
  const std::vector<std::vector<const Pattern*>> groups = GroupByShape(patterns);
  std::map<std::string, size_t> family_slot;
  for (const Pattern& pattern : patterns) {
    if (family_slot.try_emplace(pattern.name, result.stats.seconds_by_family.size()).second) {
      result.stats.seconds_by_family.emplace_back(pattern.name, 0.0);
    }
  }
  // Search the groups on a few threads (the context is read-only, and each group has a matcher
  // of its own); results are taken in group order, so they do not depend on timing.
  struct GroupResult {
    std::vector<Finding> findings;
    PatternSearchStats stats;
    double seconds = 0;
    std::exception_ptr error;
    bool done = false;
  };
  std::vector<GroupResult> group_results(groups.size());
  std::mutex mutex;
  std::condition_variable finished;
  std::atomic<size_t> next_group{0};
  auto worker = [&] {
    for (size_t i = next_group++; i < groups.size(); i = next_group++) {
      GroupResult& out = group_results[i];
      const Clock::time_point group_start = Clock::now();
      try {
        // Only groups of user patterns are bounded (a group with a built-in is searched whole).
        const bool user = std::none_of(groups[i].begin(), groups[i].end(),
                                       [](const Pattern* p) { return p->builtin; });
        out.findings = SearchPatternGroup(context, groups[i], &out.stats, options.max_per_site,
                                          user ? options.max_pattern_work : 0);
      } catch (...) {
        out.error = std::current_exception();
      }
      out.seconds = SecondsSince(group_start);
      const std::lock_guard<std::mutex> lock(mutex);
      out.done = true;
      finished.notify_all();
    }
  };
  unsigned threads = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(groups.size())));
  // Joins the helpers however this scope is left (they stop when the groups run out).
  struct Pool {
    std::vector<std::thread> threads;
    ~Pool() {
      for (std::thread& t : threads) t.join();
    }
  } pool;
  if (threads == 1) {
    worker();
  } else {
    for (unsigned t = 0; t < threads; ++t) pool.threads.emplace_back(worker);
  }
  size_t done_patterns = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      finished.wait(lock, [&] { return group_results[i].done; });
    }
    GroupResult& r = group_results[i];
    if (r.error) {
      next_group = groups.size();  // the others stop after their current group
      std::rethrow_exception(r.error);
    }
    result.stats.candidates += r.stats.candidates;
    result.stats.capped += r.stats.capped;
    result.stats.windowed += r.stats.windowed;
    for (std::string& name : r.stats.stopped) {
      result.stats.stopped_patterns.push_back(std::move(name));
      result.stats.pattern_work_bound = options.max_pattern_work;
    }
    for (Finding& f : r.findings) result.findings.push_back(std::move(f));
    const double share = r.seconds / static_cast<double>(groups[i].size());
    for (const Pattern* p : groups[i]) {
      result.stats.seconds_by_family[family_slot[p->name]].second += share;
    }
    done_patterns += groups[i].size();
    if (progress) progress->Update(done_patterns + 1);
  }
  if (deadlocks) {
    if (progress) progress->Update(done_patterns + 1, "lock-order cycles");
    const Clock::time_point deadlock_start = Clock::now();
    for (Finding& f : PredictDeadlocks(trace, context.por, context.locksets))
      result.findings.push_back(std::move(f));
    result.stats.seconds_by_family.emplace_back("deadlock", SecondsSince(deadlock_start));
    if (progress) progress->Update(done_patterns + 2);
  }
  if (progress) progress->Finish();
  FinishFindings(trace, options, &result);
  result.stats.seconds_total = SecondsSince(start);
  return result;
}

void FinishFindings(const Trace& trace, const AnalysisOptions& options, AnalysisResult* result) {
  DropAsvDuplicatesOfAtomicity(trace, &result->findings);
  // Ids: a hash of pattern, variant and sites; a collision inside one result gets a suffix.
  std::map<std::string, int> used;
  for (Finding& f : result->findings) {
    std::string id = MakeFindingId(trace, f);
    const int n = used[id]++;
    if (n > 0) id += "-" + std::to_string(n + 1);
    f.id = std::move(id);
  }
  // After the ids, so the findings left keep the ids they have without suppressions.
  if (options.suppressions != nullptr) {
    Symbolizer symbolizer(trace);
    result->stats.suppressed =
        ApplySuppressions(trace, symbolizer, *options.suppressions, result->findings);
  }
}

}  // namespace pecan
