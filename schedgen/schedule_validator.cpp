// ScheduleValidator: one pass over the schedule for program order and locks, one pass over the
// trace's inter-thread POR edges (PorIndex::SyncEdges, which with program order generate POR).
#include "schedgen/schedule_validator.h"

#include <cstdio>
#include <limits>
#include <optional>
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

// The earliest failure seen so far: reported failures name the first step that breaks a rule.
struct FirstFailure {
  uint64_t step = kNoStep;
  std::string reason;
  void Offer(uint64_t at, std::string why) {
    if (at < step) {
      step = at;
      reason = std::move(why);
    }
  }
};

}  // namespace

ScheduleValidator::ScheduleValidator(const Trace& trace, const PorIndex& por)
    : trace_(trace), por_(por) {}

ValidationResult ScheduleValidator::CheckFeasible(const std::vector<EventIndex>& schedule) const {
  return Check(schedule, PatternOrder{});
}

ValidationResult ScheduleValidator::Check(const std::vector<EventIndex>& schedule,
                                          const PatternOrder& pattern) const {
  const size_t n_events = trace_.size_events();
  const uint32_t n_threads = por_.ThreadCount();
  // Steps of each thread by local index: a thread's scheduled events are a prefix of its events.
  std::vector<std::vector<uint64_t>> step_of(n_threads);
  {
    // Exact sizes first: a schedule can hold millions of steps, and growing would copy them.
    std::vector<uint64_t> count(n_threads, 0);
    for (EventIndex e : schedule) {
      if (e < n_events && trace_.thread[e] < n_threads) ++count[trace_.thread[e]];
    }
    for (ThreadId t = 0; t < n_threads; ++t) step_of[t].reserve(count[t]);
  }
  std::unordered_map<uint64_t, std::vector<Hold>> holds;
  FirstFailure failure;

  auto step_name = [&](uint64_t step) { return "step " + std::to_string(step) + ": "; };

  for (uint64_t step = 0; step < schedule.size(); ++step) {
    const EventIndex e = schedule[step];
    if (e >= n_events) {
      failure.Offer(step, step_name(step) + "event " + std::to_string(e) + " is not in the trace");
      break;
    }
    const ThreadId t = trace_.thread[e];
    const uint64_t local = por_.LocalIndex(e);
    const uint64_t done = step_of[t].size();
    if (local < done) {
      failure.Offer(step, step_name(step) + DescribeStep(trace_, e) + " runs twice");
      break;
    }
    if (local > done) {
      failure.Offer(step, step_name(step) + DescribeStep(trace_, e) + " runs before " +
                              DescribeStep(trace_, por_.ThreadEvents(t)[done]) +
                              ": program order (a thread's steps must be a prefix of its events)");
      break;
    }
    step_of[t].push_back(step);

    const EventKind kind = trace_.kind[e];
    if (IsAcquire(kind)) {
      const bool read_mode = kind == EventKind::kReadLock;
      std::vector<Hold>& holders = holds[trace_.addr[e]];
      Hold* own = nullptr;
      for (Hold& h : holders) {
        if (h.thread == t) {
          own = &h;
        } else if (!(read_mode && h.read_mode)) {
          failure.Offer(step, step_name(step) + DescribeStep(trace_, e) + " acquires lock " +
                                  Hex(trace_.addr[e]) + " while " +
                                  DescribeThread(trace_, h.thread) + " holds it (since step " +
                                  std::to_string(h.step) + ")");
        }
      }
      if (failure.step != kNoStep) break;
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
  }

  auto scheduled_step = [&](EventIndex e) -> uint64_t {
    const ThreadId t = trace_.thread[e];
    const uint64_t local = por_.LocalIndex(e);
    return local < step_of[t].size() ? step_of[t][local] : kNoStep;
  };

  for (const auto& [source, destination] : por_.SyncEdges()) {
    const uint64_t at = scheduled_step(destination);
    if (at == kNoStep || at >= failure.step) continue;
    const uint64_t before = scheduled_step(source);
    if (before == kNoStep) {
      failure.Offer(at, step_name(at) + DescribeStep(trace_, destination) +
                            " runs, but its POR predecessor " + DescribeStep(trace_, source) +
                            " is not in the schedule");
    } else if (before > at) {
      failure.Offer(at, step_name(at) + DescribeStep(trace_, destination) +
                            " runs before its POR predecessor " + DescribeStep(trace_, source) +
                            " (step " + std::to_string(before) + ")");
    }
  }
  if (failure.step != kNoStep) return ValidationResult{false, failure.reason};

  std::optional<uint64_t> previous;
  for (size_t p = 0; p < pattern.events.size(); ++p) {
    const EventIndex e = pattern.events[p];
    const std::string which = "pattern event " + std::to_string(p + 1) + " of " +
                              std::to_string(pattern.events.size()) + ", ";
    const uint64_t at = e < n_events ? scheduled_step(e) : kNoStep;
    if (at == kNoStep) {
      return {false, which + DescribeStep(trace_, e) + ", is not in the schedule"};
    }
    if (previous && at <= *previous) {
      return {false, which + DescribeStep(trace_, e) + " (step " + std::to_string(at) +
                         "), does not come after pattern event " + std::to_string(p) + " (step " +
                         std::to_string(*previous) + ")"};
    }
    if (p == 1 && pattern.adjacent && at != *previous + 1) {
      return {false, "the race's events are not adjacent: steps " + std::to_string(*previous) +
                         " and " + std::to_string(at) + " have " +
                         std::to_string(at - *previous - 1) + " step(s) in between"};
    }
    previous = at;
  }
  return {};
}

}  // namespace pecan
