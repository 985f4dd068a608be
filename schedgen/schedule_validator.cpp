// ScheduleValidator: one pass over the schedule. Program order is a per-thread counter, POR is
// checked where an inter-thread edge arrives (PorIndex::SyncEdges, which with program order
// generate POR; the arriving ends are marked once per trace), locks are simulated. Nothing is
// allocated per step: a schedule of millions of steps costs one read of it.
#include "schedgen/schedule_validator.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <unordered_map>

namespace pecan {
namespace {

constexpr uint64_t kNoStep = std::numeric_limits<uint64_t>::max();

struct Hold {
  ThreadId thread = 0;
  bool read_mode = false;
  uint32_t depth = 0;
  uint64_t step = 0;  // where the outermost acquisition ran
};

std::string Hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string StepName(uint64_t step) {
  return "step " + std::to_string(step) + ": ";
}

}  // namespace

ScheduleValidator::ScheduleValidator(const Trace& trace, const PorIndex& por)
    : trace_(trace), por_(por), receives_edge_((trace.size_events() + 63) / 64, 0) {
  for (const auto& edge : por_.SyncEdges()) {
    receives_edge_[edge.second / 64] |= uint64_t{1} << (edge.second % 64);
  }
}

ValidationResult ScheduleValidator::CheckFeasible(const std::vector<EventIndex>& schedule) const {
  return Check(schedule, PatternOrder{});
}

ValidationResult ScheduleValidator::Check(const std::vector<EventIndex>& schedule,
                                          const PatternOrder& pattern) const {
  const size_t n_events = trace_.size_events();
  const uint32_t n_threads = por_.ThreadCount();
  const auto& edges = por_.SyncEdges();  // in destination order
  std::vector<const std::vector<EventIndex>*> events_of(n_threads);
  for (ThreadId t = 0; t < n_threads; ++t) events_of[t] = &por_.ThreadEvents(t);
  std::vector<uint64_t> done(n_threads, 0);  // per thread: how many of its events ran
  std::vector<uint64_t> pattern_step(pattern.events.size(), kNoStep);
  std::unordered_map<uint64_t, std::vector<Hold>> holds;

  auto ran = [&](EventIndex e) { return por_.LocalIndex(e) < done[trace_.thread[e]]; };

  for (uint64_t step = 0; step < schedule.size(); ++step) {
    const EventIndex e = schedule[step];
    if (e >= n_events) {
      return {false, StepName(step) + "event " + std::to_string(e) + " is not in the trace"};
    }
    const ThreadId t = trace_.thread[e];
    const std::vector<EventIndex>& mine = *events_of[t];
    if (done[t] >= mine.size() || mine[done[t]] != e) {
      if (por_.LocalIndex(e) < done[t]) {
        return {false, StepName(step) + DescribeStep(trace_, e) + " runs twice"};
      }
      return {false, StepName(step) + DescribeStep(trace_, e) + " runs before " +
                         DescribeStep(trace_, mine[done[t]]) +
                         ": program order (a thread's steps must be a prefix of its events)"};
    }
    if (receives_edge_[e / 64] >> (e % 64) & 1) {
      auto first = std::lower_bound(edges.begin(), edges.end(), e,
                                    [](const std::pair<EventIndex, EventIndex>& edge,
                                       EventIndex d) { return edge.second < d; });
      for (auto it = first; it != edges.end() && it->second == e; ++it) {
        const EventIndex source = it->first;
        if (ran(source)) continue;
        const bool later = std::find(schedule.begin() + static_cast<long>(step) + 1, schedule.end(),
                                     source) != schedule.end();
        return {false, StepName(step) + DescribeStep(trace_, e) +
                           (later ? " runs before its POR predecessor "
                                  : " runs, but its POR predecessor ") +
                           DescribeStep(trace_, source) + (later ? "" : " is not in the schedule")};
      }
    }
    ++done[t];

    const EventKind kind = trace_.kind[e];
    if (IsAcquire(kind)) {
      const bool read_mode = kind == EventKind::kReadLock;
      std::vector<Hold>& holders = holds[trace_.addr[e]];
      Hold* own = nullptr;
      for (Hold& h : holders) {
        if (h.thread == t) {
          own = &h;
        } else if (!(read_mode && h.read_mode)) {
          return {false, StepName(step) + DescribeStep(trace_, e) + " acquires lock " +
                             Hex(trace_.addr[e]) + " while " + DescribeThread(trace_, h.thread) +
                             " holds it (since step " + std::to_string(h.step) + ")"};
        }
      }
      if (own) {
        ++own->depth;
      } else {
        holders.push_back(Hold{t, read_mode, 1, step});
      }
    } else if (IsRelease(kind)) {
      auto it = holds.find(trace_.addr[e]);
      if (it != holds.end()) {
        std::vector<Hold>& holders = it->second;
        for (size_t h = 0; h < holders.size(); ++h) {
          if (holders[h].thread != t) continue;
          if (--holders[h].depth == 0) holders.erase(holders.begin() + static_cast<long>(h));
          break;
        }
      }
    }
    for (size_t p = 0; p < pattern.events.size(); ++p) {
      if (pattern.events[p] == e) pattern_step[p] = step;
    }
  }

  for (size_t p = 0; p < pattern.events.size(); ++p) {
    const EventIndex e = pattern.events[p];
    const std::string which = "pattern event " + std::to_string(p + 1) + " of " +
                              std::to_string(pattern.events.size()) + ", ";
    const uint64_t at = pattern_step[p];
    if (at == kNoStep) {
      return {false, which + DescribeStep(trace_, e) + ", is not in the schedule"};
    }
    if (p == 0) continue;
    const uint64_t previous = pattern_step[p - 1];
    if (at <= previous) {
      return {false, which + DescribeStep(trace_, e) + " (step " + std::to_string(at) +
                         "), does not come after pattern event " + std::to_string(p) + " (step " +
                         std::to_string(previous) + ")"};
    }
    if (pattern.adjacent && at != previous + 1) {
      return {false, "the pattern's events " + std::to_string(p) + " and " + std::to_string(p + 1) +
                         " are not adjacent: steps " + std::to_string(previous) + " and " +
                         std::to_string(at) + " have " + std::to_string(at - previous - 1) +
                         " step(s) in between"};
    }
  }
  return {};
}

}  // namespace pecan
