// Conclude (runtime verdict + process end -> FinalVerdict) and the text and JSON printers.
#include "cli/replay_output.h"

#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "analyzer/symbolizer.h"
#include "cli/replay_race_text.h"
#include "cli/replay_reason_text.h"
#include "cli/replay_stuck_text.h"
#include "trace_format/event_kind.h"
#include "trace_format/signal_name.h"
#include "trace_format/trace.h"

namespace pecan::cli {
namespace {

// The runtime ends a run it stopped with this status (replayer/replay_session.h): it is not the
// program's.
constexpr int kReplayStoppedExitStatus = 86;

std::string SecondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

// The runtime prefixes the stop cause ("deadlock: ") to a reason that may already start with
// it: say it once.
std::string WithoutRepeatedCause(std::string reason) {
  const size_t colon = reason.find(": ");
  if (colon == std::string::npos) return reason;
  const std::string cause = reason.substr(0, colon + 2);
  if (reason.compare(cause.size(), cause.size(), cause) == 0) reason.erase(0, cause.size());
  return reason;
}

// The thread of the schedule's step `position` (runs of (thread, length)).
std::optional<uint32_t> StepThread(const proto::Clip& clip, uint64_t position) {
  uint64_t start = 0;
  for (int run = 0; run < clip.run_thread_size() && run < clip.run_length_size(); ++run) {
    if (position < start + clip.run_length(run)) return clip.run_thread(run);
    start += clip.run_length(run);
  }
  return std::nullopt;
}

bool HasAnomaly(const proto::Clip& clip) {
  return clip.anomaly_steps_size() > 0;
}

std::string JoinAnomaly(const std::vector<AnomalyEventText>& events) {
  std::string text;
  for (const auto& event : events) {
    if (!text.empty()) text += ", ";
    text += event.thread + " " + event.kind + " at " + event.site;
  }
  return text;
}

// What happened after the anomaly formed (or the schedule ended), from the process's end.
void DescribeFailure(const proto::Verdict& v, const ChildEnd& end, double timeout_seconds,
                     int expected_exit, ReasonPlaces& places, FinalVerdict& result) {
  result.failure = v.failure();
  result.failure_thread = v.failure_thread();
  result.failure_site = DescribeFailureSite(v);
  if (!v.failure_message().empty() && !end.timed_out) {
    // The runtime saw the failure itself (it keeps serializing the run to its end).
    result.failure_message = SymbolizedPlaces(v.failure_message(), places);
    if (const std::string stuck = DescribeStuckThreads(v); !stuck.empty())
      result.failure_message =
          (result.failure == "deadlock" ? "every thread is blocked: "
                                        : "the run did not end within its time bound: ") +
          stuck;
    const size_t then = result.reason.find("; then ");
    if (result.failure == "assertion" && then != std::string::npos) result.reason.resize(then);
    return;
  }
  if (end.timed_out) {
    if (result.failure.empty()) result.failure = "timeout";
    result.failure_message = "the program did not end within " + SecondsText(timeout_seconds) +
                             " after the anomaly formed (killed)";
  } else if (end.signal != 0) {
    if (result.failure.empty()) result.failure = "crashed";
    if (result.failure == "assertion") {
      const size_t then = result.reason.find("; then ");
      result.failure_message =
          then == std::string::npos ? "assertion failed" : result.reason.substr(then + 7);
      if (then != std::string::npos) result.reason.resize(then);
    } else {
      result.failure_message = "the program died of " + SignalName(end.signal);
    }
  } else if (end.exited && end.exit_status != expected_exit) {
    if (result.failure.empty() || result.failure == "exit") result.failure = "exit";
    result.failure_message = "the program exited with status " + std::to_string(end.exit_status);
  } else if (!result.failure.empty()) {
    result.failure_message = "the program reported " + result.failure;
  }
}

}  // namespace

bool RaceRunsReversed(const proto::Clip& clip, bool reverse_requested) {
  if (!reverse_requested || clip.finding().pattern() != "race" || clip.anomaly_steps_size() != 2)
    return false;
  const uint64_t first = clip.anomaly_steps(0);
  const uint64_t second = clip.anomaly_steps(1);
  if (second != first + 1) return false;
  const std::optional<uint32_t> a = StepThread(clip, first);
  const std::optional<uint32_t> b = StepThread(clip, second);
  return a && b && *a != *b;
}

std::vector<AnomalyEventText> DescribeAnomaly(const proto::Clip& clip, bool race_reversed) {
  Trace tables;
  for (const auto& module : clip.modules())
    tables.modules.push_back(
        {module.id(), module.path(), module.load_address(), module.build_id()});
  // Site ids are the trace's (sparse): the symbolizer gets a compact table, row_of_site maps.
  std::map<uint32_t, SiteId> row_of_site;
  for (const auto& site : clip.sites()) {
    row_of_site[site.id()] = static_cast<SiteId>(tables.sites.size());
    tables.sites.push_back({site.module(), site.offset()});
  }
  std::map<uint32_t, std::string> thread_names;
  for (const auto& thread : clip.threads())
    thread_names[thread.id()] =
        thread.name().empty() ? "T" + std::to_string(thread.id()) : thread.name();
  Symbolizer symbolizer(tables);
  std::vector<AnomalyEventText> events;
  for (const auto& event : clip.finding().events()) {
    AnomalyEventText text;
    auto name = thread_names.find(event.thread());
    text.thread = name != thread_names.end() ? name->second : "T" + std::to_string(event.thread());
    text.kind = std::string(EventKindName(static_cast<EventKind>(event.kind())));
    auto row = row_of_site.find(event.site());
    text.site = row != row_of_site.end() ? symbolizer.Describe(row->second) : "?";
    if (auto variable = symbolizer.NameOfAddress(event.address());
        variable && IsAccess(static_cast<EventKind>(event.kind())))
      text.kind += " " + *variable;
    events.push_back(std::move(text));
  }
  if (race_reversed && events.size() == 2) std::swap(events[0], events[1]);
  return events;
}

FinalVerdict Conclude(const std::optional<proto::Verdict>& runtime_verdict, const ChildEnd& end,
                      const proto::Clip& clip, const std::string& program, double timeout_seconds,
                      int expected_exit) {
  FinalVerdict result;
  result.steps_total = static_cast<uint64_t>(clip.step_kind_size());
  result.signal = end.signal;
  result.seconds = end.seconds;
  result.timed_out = end.timed_out;
  // The program's own status, unless the runtime ended the process after stopping the replay.
  const bool runtime_ended_it =
      end.exited && end.exit_status == kReplayStoppedExitStatus &&
      (!runtime_verdict || runtime_verdict->outcome() == proto::Verdict::INFEASIBLE ||
       runtime_verdict->outcome() == proto::Verdict::ERROR ||
       runtime_verdict->failure() == "deadlock" || runtime_verdict->failure() == "timeout");
  if (end.exited && !runtime_ended_it) result.exit_status = end.exit_status;

  if (!runtime_verdict) {
    if (end.timed_out) {
      result.verdict = "infeasible";
      result.reason = "time bound: the run did not end within " + SecondsText(timeout_seconds) +
                      " and was killed before the runtime wrote a verdict";
      return result;
    }
    result.verdict = "error";
    if (runtime_ended_it) {
      result.reason = "the runtime stopped the replay but left no verdict (is " +
                      std::filesystem::temp_directory_path().string() + " writable?)";
    } else {
      result.reason = program + " wrote no verdict: it did not run pecan's runtime in replay " +
                      "mode (is it the program built with pecan-cc / pecan-c++, and does it " +
                      "start?)";
    }
    return result;
  }
  const proto::Verdict& v = *runtime_verdict;
  result.steps_executed = v.steps_executed();
  if (v.steps_total() != 0) result.steps_total = v.steps_total();
  // Named once here, so the line and the JSON object say the same.
  ReasonPlaces places(clip, v);
  result.reason = SymbolizedPlaces(WithoutRepeatedCause(v.reason()), places);
  result.divergence = SymbolizedPlaces(v.divergence(), places);
  result.events = v.events_scheduled();
  result.idle_handovers = v.idle_handovers();
  result.unsettled_choices = v.unsettled_choices();
  result.races = RealRacesJson(v);
  result.races_total = v.races_total();
  result.first_race = FirstRealRaceText(v);
  result.failure_clip = v.failure_clip();
  switch (v.outcome()) {
    case proto::Verdict::HATCHED:
      // Without anomaly events there is nothing to hatch: the clip was followed to its end.
      result.verdict = HasAnomaly(clip) ? "hatched" : "followed";
      DescribeFailure(v, end, timeout_seconds, expected_exit, places, result);
      return result;
    case proto::Verdict::EXPOSED:
      result.verdict = "exposed";
      DescribeFailure(v, end, timeout_seconds, expected_exit, places, result);
      return result;
    case proto::Verdict::DEADLOCKED:
      result.verdict = "deadlocked";
      DescribeFailure(v, end, timeout_seconds, expected_exit, places, result);
      return result;
    case proto::Verdict::INFEASIBLE:
      result.verdict = "infeasible";
      result.timed_out = result.timed_out || result.reason.rfind("time bound", 0) == 0;
      if (!result.exit_status && v.exit_status() != 0) result.exit_status = v.exit_status();
      return result;
    case proto::Verdict::ERROR:
      result.verdict = "error";
      return result;
    default:
      break;
  }
  // The runtime started but never concluded: the process ended (or was killed) mid-schedule.
  result.verdict = "infeasible";
  if (end.timed_out) {
    result.reason = "time bound: the run did not end within " + SecondsText(timeout_seconds) +
                    " and was killed";
  } else if (end.signal != 0) {
    result.reason = "program failed: the program died of " + SignalName(end.signal) +
                    " before the anomaly formed";
  } else {
    result.reason = "program exited: the program exited with status " +
                    std::to_string(end.exit_status) + " before the schedule ended";
  }
  return result;
}

int ExitStatusFor(const FinalVerdict& verdict) {
  if (verdict.verdict == "hatched" || verdict.verdict == "followed" ||
      verdict.verdict == "exposed" || verdict.verdict == "deadlocked")
    return 0;
  if (verdict.verdict == "infeasible") return 3;
  return 2;
}

void PrintVerdictJson(std::ostream& out, const FinalVerdict& verdict, const proto::Clip& clip,
                      const std::vector<AnomalyEventText>& anomaly, bool race_reversed,
                      const std::string& clip_path) {
  using nlohmann::json;
  json object;
  object["verdict"] = verdict.verdict;
  object["failure"] = verdict.failure.empty() ? json(nullptr) : json(verdict.failure);
  object["failure_message"] = verdict.failure_message;
  object["failure_thread"] =
      verdict.failure_thread.empty() ? json(nullptr) : json(verdict.failure_thread);
  if (verdict.failure_site.text.empty()) {
    object["failure_site"] = nullptr;
  } else {
    object["failure_site"] = {{"file", verdict.failure_site.file},
                              {"line", verdict.failure_site.line},
                              {"function", verdict.failure_site.function},
                              {"text", verdict.failure_site.text}};
  }
  object["reason"] = verdict.reason;
  object["steps_executed"] = verdict.steps_executed;
  object["steps_total"] = verdict.steps_total;
  object["events"] = verdict.events;
  object["idle_handovers"] = verdict.idle_handovers;
  object["unsettled_choices"] = verdict.unsettled_choices;
  object["races"] = verdict.races;
  object["races_total"] = verdict.races_total;
  object["finding_id"] = clip.finding().id();
  object["pattern"] = clip.finding().pattern();
  object["variant"] = clip.finding().variant();
  json events = json::array();
  for (const auto& event : anomaly)
    events.push_back({{"thread", event.thread}, {"kind", event.kind}, {"site", event.site}});
  object["anomaly"] = events;
  object["race_reversed"] = race_reversed;
  object["exit_status"] = verdict.exit_status ? json(*verdict.exit_status) : json(nullptr);
  object["signal"] = verdict.signal != 0 ? json(verdict.signal) : json(nullptr);
  object["signal_name"] = verdict.signal != 0 ? json(SignalName(verdict.signal)) : json(nullptr);
  object["timed_out"] = verdict.timed_out;
  object["seconds"] = verdict.seconds;
  object["clip"] = clip_path;
  object["divergence"] = verdict.divergence.empty() ? json(nullptr) : json(verdict.divergence);
  object["failure_clip"] =
      verdict.failure_clip.empty() ? json(nullptr) : json(verdict.failure_clip);
  out << object.dump(-1, ' ', false, json::error_handler_t::replace) << std::endl;
}

void PrintVerdictLine(std::ostream& out, const FinalVerdict& verdict, const proto::Clip& clip,
                      const std::vector<AnomalyEventText>& anomaly) {
  std::string what = clip.finding().pattern();
  if (!clip.finding().variant().empty()) what += " " + clip.finding().variant();
  std::string line = "pecan: " + verdict.verdict + ": " + what + " [" + clip.finding().id() + "] " +
                     JoinAnomaly(anomaly);
  if (anomaly.empty()) {  // a clip of a whole run (`pecan clips --recorded`)
    line = "pecan: " + verdict.verdict + ": " + what + " run [" + clip.finding().id() + "]";
  }
  const std::string steps =
      std::to_string(verdict.steps_executed) + "/" + std::to_string(verdict.steps_total) + " steps";
  if (verdict.verdict == "hatched" || verdict.verdict == "followed") {
    line += " (" + steps + ")";
    if (!verdict.failure.empty())
      line += "; then " + verdict.failure + ": " + verdict.failure_message;
  } else if (verdict.verdict == "exposed") {
    line += " -- " + verdict.reason + " (" + steps + " of the clip)";
  } else if (verdict.verdict == "deadlocked") {
    line += " (" + steps + "); then " + verdict.failure_message;
  } else {
    line += " -- " + verdict.reason + " (" + steps + ")";
  }
  out << line << std::endl;
  if (verdict.races_total > 0)
    out << "pecan: real race" << (verdict.races_total > 1 ? "s: " : ": ") << verdict.first_race
        << (verdict.races_total > 1
                ? " (and " + std::to_string(verdict.races_total - 1) + " more, in --json)"
                : "")
        << std::endl;
  if (!verdict.failure_clip.empty())
    out << "pecan: failure clip: " << verdict.failure_clip << " (replays this run's failure)"
        << std::endl;
}

void PrintErrorJson(std::ostream& out, const std::string& reason, const std::string& clip_path) {
  nlohmann::json object{{"verdict", "error"}, {"reason", reason}, {"clip", clip_path}};
  out << object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

}  // namespace pecan::cli
