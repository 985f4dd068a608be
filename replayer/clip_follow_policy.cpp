// ClipFollowPolicy: matching events against the clip's steps, and the hatched check.
#include "replayer/clip_follow_policy.h"

#include <cstdio>

namespace pecan::replay {
namespace {

uint64_t PathKey(LogicalThread parent, uint32_t ordinal) {
  return (static_cast<uint64_t>(parent) << 32) | ordinal;
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

bool Overlap(uint64_t a, uint32_t a_size, uint64_t b, uint32_t b_size) {
  // Locks, condition variables, ... carry size 0: they are one byte for this purpose.
  uint64_t a_end = a + (a_size == 0 ? 1 : a_size);
  uint64_t b_end = b + (b_size == 0 ? 1 : b_size);
  return a < b_end && b < a_end;
}

bool SameKind(EventKind step, const EventView& event) {
  return step == event.kind || (event.compare_exchange && step == EventKind::kAtomicLoad);
}

}  // namespace

ClipFollowPolicy::ClipFollowPolicy(const ReplaySchedule& schedule, SiteLocator& locator)
    : schedule_(schedule),
      locator_(locator),
      next_unrecorded_(static_cast<LogicalThread>(schedule.threads.size())) {
  locator_.Locate(schedule_, runtime_pc_);
  for (size_t i = 0; i < schedule_.threads.size(); ++i) {
    const ScheduleThread& thread = schedule_.threads[i];
    thread_by_path_.emplace(PathKey(thread.parent, thread.ordinal), static_cast<LogicalThread>(i));
  }
  anomaly_seen_.reserve(schedule_.anomaly.size());
  epoch_of_thread_.assign(schedule_.threads.size(), 1);
  first_access_step_.resize(schedule_.threads.size());
  free_repeats_run_.assign(schedule_.threads.size(), 0);
}

LogicalThread ClipFollowPolicy::IdentifyThread(LogicalThread parent, uint32_t ordinal) {
  // A parent that is itself unrecorded has no recorded children either.
  if (parent == kNoThread || parent < schedule_.threads.size()) {
    auto known = thread_by_path_.find(PathKey(parent, ordinal));
    if (known != thread_by_path_.end()) return known->second;
  }
  return next_unrecorded_.fetch_add(1, std::memory_order_relaxed);
}

LogicalThread ClipFollowPolicy::FirstHolder() {
  return schedule_.steps.empty() ? kNoThread : schedule_.steps.front().thread;
}

uint64_t ClipFollowPolicy::RepeatOf(LogicalThread thread, const EventView& event) const {
  if (!schedule_.knows_repeats || !IsPlainAccess(event.kind) || thread >= epoch_of_thread_.size())
    return kNotARepeat;
  const uint64_t step = first_access_step_[thread].Find(
      EpochAccess{event.addr, event.pc, event.size, event.kind}, epoch_of_thread_[thread]);
  return step == EpochAccessTable::kAbsent ? kNotARepeat : step;
}

void ClipFollowPolicy::NoteExecuted(LogicalThread thread, const EventView& event,
                                    uint64_t position) {
  if (!schedule_.knows_repeats || thread >= epoch_of_thread_.size()) return;
  if (!IsPlainAccess(event.kind)) {
    ++epoch_of_thread_[thread];  // as the recorder's epochs end at every other event
    return;
  }
  first_access_step_[thread].FindOrAdd(EpochAccess{event.addr, event.pc, event.size, event.kind},
                                       epoch_of_thread_[thread], position);
}

SchedulePolicy::Check ClipFollowPolicy::CheckEvent(LogicalThread thread, const EventView& event,
                                                   const WaitingThreads&) {
  const uint64_t position = position_.load(std::memory_order_relaxed);
  if (position >= schedule_.steps.size()) return Check::kNotMine;
  const ScheduleStep& step = schedule_.steps[position];
  const uint64_t repeat_of = RepeatOf(thread, event);
  if (step.thread != thread) {
    // The thread being positioned for the anomaly's last event runs the repeats the recording
    // counted before that event, so that it can stand at the event itself.
    if (repeat_of != kNotARepeat && positioning_.load() == Positioning::kActive &&
        schedule_.steps[schedule_.anomaly.back().step].thread == thread &&
        free_repeats_run_[thread] < schedule_.steps[schedule_.anomaly.back().step].repeats_before) {
      ++free_repeats_run_[thread];
      return Check::kFree;
    }
    NotePoised(thread, event, position);
    return Check::kNotMine;
  }
  // Repeats the recording left out before this step run first, on this thread's turn (so
  // never alongside another thread), without taking a step; exactly as many as it counted.
  if (repeat_of != kNotARepeat && free_repeats_run_[thread] < step.repeats_before) {
    ++free_repeats_run_[thread];
    return Check::kFree;
  }
  if (Matches(step, event, repeat_of))
    return StartPositioning(thread, position) ? Check::kNotMine : Check::kMine;
  if (repeat_of != kNotARepeat) {
    repeated_too_often_ = true;  // e.g. a spin loop whose flag the schedule never sets
    return Check::kDiverged;
  }
  return CheckAfterMismatch(step, event, repeat_of);
}

bool ClipFollowPolicy::LastThreadGoesStraightThere(uint64_t position) const {
  const uint64_t last = schedule_.anomaly.back().step;
  const LogicalThread thread = schedule_.steps[last].thread;
  for (uint64_t s = position; s < last; ++s)
    if (schedule_.steps[s].thread == thread) return false;
  return true;
}

bool ClipFollowPolicy::StartPositioning(LogicalThread thread, uint64_t position) {
  const auto& anomaly = schedule_.anomaly;
  if (anomaly.size() < 2 || positioning_.load() != Positioning::kNotYet || last_poised_ ||
      anomaly[anomaly.size() - 2].step != position ||
      schedule_.steps[anomaly.back().step].thread == thread ||
      !LastThreadGoesStraightThere(position))
    return false;
  positioning_.store(Positioning::kActive);
  return true;
}

bool ClipFollowPolicy::Matches(const ScheduleStep& step, const EventView& event,
                               uint64_t repeat_of) const {
  return SameKind(step.kind, event) && runtime_pc_[step.site] == event.pc &&
         (!schedule_.knows_repeats || step.repeat_of == repeat_of);
}

void ClipFollowPolicy::NotePoised(LogicalThread thread, const EventView& event, uint64_t position) {
  if (anomaly_formed_ || schedule_.anomaly.size() < 2) return;
  const uint64_t last = schedule_.anomaly.back().step;
  const ScheduleStep& step = schedule_.steps[last];
  if (step.thread != thread) return;
  // Whatever it reported, the thread being positioned has now had its chance.
  Positioning active = Positioning::kActive;
  positioning_.compare_exchange_strong(active, Positioning::kDone);
  if (position > last || !Matches(step, event, RepeatOf(thread, event)) ||
      !LastThreadGoesStraightThere(position))
    return;
  last_poised_ = true;
  last_poised_at_ = {event.addr, event.size};
}

bool ClipFollowPolicy::FormsWithLastPending() {
  if (!last_poised_ || next_anomaly_ + 1 != schedule_.anomaly.size()) return false;
  anomaly_seen_.push_back(last_poised_at_);
  if (!AnomalyLocationsAgree()) {
    anomaly_seen_.pop_back();  // not one location: the last event's own execution decides
    refuted_ = {};
    return false;
  }
  ++next_anomaly_;
  formed_with_last_pending_ = true;
  return true;
}

SchedulePolicy::Check ClipFollowPolicy::CheckAfterMismatch(const ScheduleStep& step,
                                                           const EventView& event,
                                                           uint64_t repeat_of) {
  if (!SameKind(step.kind, event)) return Check::kDiverged;
  // The site's module may have been loaded after start-up (dlopen): look once more.
  if (!located_again_) {
    located_again_ = true;
    locator_.Locate(schedule_, runtime_pc_);
    if (Matches(step, event, repeat_of)) return Check::kMine;
  }
  return Check::kDiverged;
}

SchedulePolicy::Progress ClipFollowPolicy::Execute(LogicalThread thread, const EventView& event) {
  Progress progress;
  const uint64_t position = position_.load(std::memory_order_relaxed);
  NoteExecuted(thread, event, position);
  if (thread < free_repeats_run_.size()) free_repeats_run_[thread] = 0;
  if (next_anomaly_ < schedule_.anomaly.size() &&
      schedule_.anomaly[next_anomaly_].step == position) {
    anomaly_seen_.push_back({event.addr, event.size});
    ++next_anomaly_;
    if (next_anomaly_ == schedule_.anomaly.size()) {
      if (AnomalyLocationsAgree()) {
        anomaly_formed_ = true;
        progress.anomaly_formed = true;
      } else {
        progress.stop = true;
      }
    } else if (FormsWithLastPending()) {
      anomaly_formed_ = true;
      progress.anomaly_formed = true;
    }
  }
  position_.store(position + 1, std::memory_order_release);
  if (position + 1 == schedule_.steps.size() && !progress.stop) progress.finished = true;
  return progress;
}

bool ClipFollowPolicy::AnomalyLocationsAgree() {
  const auto& anomaly = schedule_.anomaly;
  for (size_t i = 0; i < anomaly.size(); ++i) {
    for (size_t j = i + 1; j < anomaly.size(); ++j) {
      if (!Overlap(anomaly[i].recorded_address, anomaly[i].recorded_size,
                   anomaly[j].recorded_address, anomaly[j].recorded_size))
        continue;
      const SeenAccess& a = anomaly_seen_[i];
      const SeenAccess& b = anomaly_seen_[j];
      if (Overlap(a.address, a.size, b.address, b.size)) continue;
      refuted_.cause = StopCause::kAnomalyRefuted;
      refuted_.reason = "the anomaly's events ran in order but not on one location: event " +
                        std::to_string(i + 1) + " (step " + std::to_string(anomaly[i].step) +
                        ") touched " + Hex(a.address) + "+" + std::to_string(a.size) + ", event " +
                        std::to_string(j + 1) + " (step " + std::to_string(anomaly[j].step) +
                        ") touched " + Hex(b.address) + "+" + std::to_string(b.size);
      return false;
    }
  }
  return true;
}

LogicalThread ClipFollowPolicy::NextHolder(LogicalThread from, const WaitingThreads&) {
  if (positioning_.load() == Positioning::kActive) {
    const LogicalThread last_thread = schedule_.steps[schedule_.anomaly.back().step].thread;
    if (from != last_thread) return last_thread;
    positioning_.store(Positioning::kDone);  // it gave the turn up (blocked, idle, exited)
  }
  const uint64_t position = position_.load(std::memory_order_acquire);
  return position < schedule_.steps.size() ? schedule_.steps[position].thread : kNoThread;
}

bool ClipFollowPolicy::OwnsNextStep(LogicalThread thread) const {
  const uint64_t position = position_.load(std::memory_order_acquire);
  return position < schedule_.steps.size() && schedule_.steps[position].thread == thread;
}

std::string ClipFollowPolicy::DescribeDivergence(LogicalThread thread,
                                                 const EventView& event) const {
  const uint64_t position = position_.load(std::memory_order_acquire);
  const ScheduleStep& step = schedule_.steps[position];
  if (repeated_too_often_) {
    return ThreadName(thread) + " diverged before step " + std::to_string(position + 1) + " of " +
           std::to_string(schedule_.steps.size()) + ": it repeated its " +
           std::string(EventKindName(event.kind)) + " at " + locator_.DescribePc(event.pc) +
           " more than the " + std::to_string(step.repeats_before) +
           " times the recording did before its " + std::string(EventKindName(step.kind)) + " at " +
           schedule_.DescribeSite(step.site);
  }
  return ThreadName(thread) + " diverged at step " + std::to_string(position + 1) + " of " +
         std::to_string(schedule_.steps.size()) + ": expected " +
         std::string(EventKindName(step.kind)) + " at " + schedule_.DescribeSite(step.site) +
         ", saw " + std::string(EventKindName(event.kind)) + " at " + locator_.DescribePc(event.pc);
}

std::string ClipFollowPolicy::DescribeNextStep() const {
  const uint64_t position = position_.load(std::memory_order_acquire);
  if (position >= schedule_.steps.size()) return "no step left";
  const ScheduleStep& step = schedule_.steps[position];
  return "step " + std::to_string(position + 1) + " of " + std::to_string(schedule_.steps.size()) +
         ", " + ThreadName(step.thread) + " " + std::string(EventKindName(step.kind)) + " at " +
         schedule_.DescribeSite(step.site);
}

std::string ClipFollowPolicy::ThreadName(LogicalThread thread) const {
  return schedule_.ThreadName(thread);
}

}  // namespace pecan::replay
