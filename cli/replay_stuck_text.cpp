// DescribeStuckThreads: each stuck thread's places named by PlaceNames, in one clause.
#include "cli/replay_stuck_text.h"

#include <regex>

#include "workflow/verdict_place_names.h"

namespace pecan::cli {

using workflow::BaseName;
using workflow::PlaceNames;

namespace {

std::string WhatTheCallWaitsFor(const proto::StuckThread& thread, PlaceNames& names) {
  if (thread.event() == "join") return "waits to join a thread";
  if (thread.event() == "sem_wait") return "waits on semaphore " + names.Object(thread.object());
  if (thread.event() == "barrier_depart")
    return "waits at barrier " + names.Object(thread.object());
  if (thread.event() == "hb_acquire")
    return "waits for another thread's initialization of a static";
  if (thread.event() == "lock" || thread.event() == "read_lock")
    return "is blocked taking lock " + names.Object(thread.object());
  if (thread.event() == "wait") return "waits on condition " + names.Object(thread.object());
  return "is blocked in " + thread.event();
}

std::string Clause(const proto::StuckThread& thread, PlaceNames& names) {
  std::string text = thread.name() + " ";
  const std::string at = names.Code(thread.at());
  const std::string where = at.empty() ? "" : " (" + at + ")";
  if ((thread.waits_for() == "lock" || thread.waits_for() == "read lock") &&
      thread.held_by() == thread.name()) {
    text += "waits for " + std::string(thread.waits_for() == "lock" ? "lock " : "read lock ") +
            names.Object(thread.object()) + where + ", which it holds itself";
    const std::string taken = names.Code(thread.held_at());
    if (!taken.empty()) text += " (taken at " + taken + ")";
    return text;
  }
  if (thread.waits_for() == "lock" || thread.waits_for() == "read lock") {
    text += "waits for " + std::string(thread.waits_for() == "lock" ? "lock " : "read lock ") +
            names.Object(thread.object()) + where;
    if (!thread.held_by().empty()) {
      text += " held by " + thread.held_by();
      const std::string taken = names.Code(thread.held_at());
      if (!taken.empty()) text += " (taken at " + taken + ")";
    } else if (thread.readers() > 0) {
      text += " held by " + std::to_string(thread.readers()) + " reader(s)";
    }
    return text;
  }
  if (thread.waits_for() == "condition")
    return text + "waits for a notify of condition " + names.Object(thread.object()) + where;
  // Most of its recent events at one site, and not waiting for another thread: a spin (a
  // polling loop), whether it is at that event or between two.
  constexpr uint32_t kSpinEvents = 16;
  if (thread.recent_events() >= kSpinEvents &&
      thread.recent_repeats() * 2 >= thread.recent_events()) {
    const std::string spin_at = names.Code(thread.spin_at());
    return text + "spins: " + std::to_string(thread.recent_repeats()) + " of its last " +
           std::to_string(thread.recent_events()) + " events were its " + thread.spin_event() +
           (spin_at.empty() ? "" : " (" + spin_at + ")");
  }
  if (thread.event().empty()) {
    if (thread.activity() == "running") return text + "is running (it reaches no event)";
    return text + "is " + thread.activity();
  }
  if (thread.activity() == "waiting for its turn")
    return text + "waits for its turn at " + thread.event() + where;
  if (thread.activity() == "running") return text + "is at " + thread.event() + where;
  // Inside the real call: what it waits for is the program's, not pecan's model.
  std::string call = thread.object().address() != 0 || thread.event() == "join"
                         ? WhatTheCallWaitsFor(thread, names)
                         : "is blocked in " + thread.event();
  return text + call + where;
}

}  // namespace

std::string DescribeStuckThreads(const proto::Verdict& verdict) {
  if (verdict.stuck_threads_size() == 0) return "";
  PlaceNames names(verdict);
  std::string text;
  for (const proto::StuckThread& thread : verdict.stuck_threads()) {
    if (!text.empty()) text += "; ";
    text += Clause(thread, names);
  }
  return text;
}

FailureSite DescribeFailureSite(const proto::Verdict& verdict) {
  FailureSite site;
  // "file:line: function: assertion `...' failed" (the runtime's text of __assert_fail).
  static const std::regex assertion(R"(^(.+?):(\d+): (.+?): assertion )");
  std::smatch match;
  if (verdict.failure() == "assertion" &&
      std::regex_search(verdict.failure_message(), match, assertion)) {
    site.file = match[1];
    site.line = static_cast<uint32_t>(std::stoul(match[2]));
    site.function = match[3];
  } else if (verdict.has_failure_site()) {
    PlaceNames names(verdict);
    const SourceLocation location = names.Source(verdict.failure_site());
    site.file = location.file;
    site.line = location.line;
    site.function = location.function;
    if (site.file.empty()) site.text = names.Code(verdict.failure_site());
  }
  if (!site.file.empty()) site.text = BaseName(site.file) + ":" + std::to_string(site.line);
  if (!site.text.empty() && !site.function.empty()) site.text += " (" + site.function + ")";
  return site;
}

}  // namespace pecan::cli
