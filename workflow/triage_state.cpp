#include "workflow/triage_state.h"

#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/output_file.h"
#include "workflow/clip_picture.h"

namespace pecan::workflow {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kFormat = "pecan-triage-state";
constexpr int kVersion = 1;

json SiteState(const SummarySite& site) {
  return {
      {"function", site.function}, {"file", site.file}, {"line", site.line}, {"text", site.text}};
}

SummarySite SiteFromState(const json& j) {
  return {j.at("function"), j.at("file"), j.at("line"), j.at("text")};
}

json EventState(const SummaryEvent& event) {
  json stack = json::array();
  for (const SummarySite& frame : event.stack) stack.push_back(SiteState(frame));
  return {{"thread", event.thread},
          {"thread_name", event.thread_name},
          {"kind", event.kind},
          {"site", SiteState(event.site)},
          {"variable", event.variable},
          {"stack", std::move(stack)},
          {"thread_created_at", SiteState(event.thread_created_at)}};
}

SummaryEvent EventFromState(const json& j) {
  SummaryEvent event{j.at("thread"),
                     j.at("thread_name"),
                     j.at("kind"),
                     SiteFromState(j.at("site")),
                     j.at("variable"),
                     {},
                     {}};
  for (const json& frame : j.value("stack", json::array()))
    event.stack.push_back(SiteFromState(frame));
  if (j.contains("thread_created_at"))
    event.thread_created_at = SiteFromState(j.at("thread_created_at"));
  return event;
}

// Every field, unlike summary.json's verdict: the merged summaries are written from these.
// `failure_clip` is relative to the state's directory.
json VerdictState(const SummaryVerdict& v, const std::string& failure_clip) {
  return {{"outcome", v.outcome},
          {"failure", v.failure},
          {"failure_message", v.failure_message},
          {"failure_thread", v.failure_thread},
          {"failure_site", v.failure_site},
          {"failure_file", v.failure_file},
          {"failure_line", v.failure_line},
          {"failure_clip", failure_clip},
          {"divergence", v.divergence},
          {"events", v.events},
          {"signal", v.signal},
          {"exit_status", v.exit_status},
          {"reason", v.reason},
          {"seconds", v.seconds},
          {"races", v.races},
          {"races_total", v.races_total},
          {"idle_handovers", v.idle_handovers}};
}

SummaryVerdict VerdictFromState(const json& j) {
  SummaryVerdict v;
  v.outcome = j.at("outcome");
  v.failure = j.at("failure");
  v.failure_message = j.at("failure_message");
  v.failure_thread = j.at("failure_thread");
  v.failure_site = j.at("failure_site");
  v.failure_file = j.at("failure_file");
  v.failure_line = j.at("failure_line");
  v.failure_clip = j.at("failure_clip");
  v.divergence = j.at("divergence");
  v.events = j.at("events");
  v.signal = j.at("signal");
  v.exit_status = j.at("exit_status");
  v.reason = j.at("reason");
  v.seconds = j.at("seconds");
  v.races = j.at("races");
  v.races_total = j.at("races_total");
  v.idle_handovers = j.at("idle_handovers");
  return v;
}

json TraceState(size_t position, const SummaryTrace& t) {
  return {{"position", position},   {"path", t.path},         {"status", t.status},
          {"error", t.error},       {"warnings", t.warnings}, {"events", t.events},
          {"findings", t.findings}, {"seconds", t.seconds}};
}

SummaryTrace TraceFromState(const json& j) {
  SummaryTrace t;
  t.path = j.at("path");
  t.status = j.at("status");
  t.error = j.at("error");
  t.warnings = j.at("warnings").get<std::vector<std::string>>();
  t.events = j.at("events");
  t.findings = j.at("findings");
  t.seconds = j.at("seconds");
  return t;
}

// The labelled runs of a clip's picture (a few around the anomaly), by run index.
json RunLabelsState(const SwimlanePicture& picture) {
  json labels = json::object();
  for (size_t r = 0; r < picture.run_labels.size(); r++)
    if (!picture.run_labels[r].empty()) labels[std::to_string(r)] = picture.run_labels[r];
  return labels;
}

void RunLabelsFromState(const json& labels, SwimlanePicture& picture) {
  picture.run_labels.assign(picture.run_thread.size(), "");
  for (const auto& [run, label] : labels.items()) {
    const size_t r = std::stoul(run);
    if (r < picture.run_labels.size()) picture.run_labels[r] = label.get<std::string>();
  }
}

// A path the state names inside its directory: relative, and not leaving it.
std::string InsideDirectory(const std::string& dir, const std::string& relative) {
  if (relative.empty() || fs::path(relative).is_absolute() ||
      relative.find("..") != std::string::npos)
    throw PecanError("the path '" + relative + "' is not inside the directory");
  return (fs::path(dir) / relative).string();
}

}  // namespace

void TriageState::Merge(TriageState other, const std::string& other_name) {
  auto refuse = [&](const std::string& why) {
    throw PecanError(other_name + " is not part of the same triage: " + why);
  };
  if (other.total_traces != total_traces || other.inputs_digest != inputs_digest)
    refuse("it was triaged from another list of traces (" + std::to_string(other.total_traces) +
           " traces, digest " + other.inputs_digest + ", not " + std::to_string(total_traces) +
           " traces, digest " + inputs_digest +
           "); give every shard the same trace arguments, in the same order, from the same "
           "directory");
  if (other.suppressions != suppressions)
    refuse("it was triaged with other --suppressions (rules digest '" + other.suppressions +
           "', not '" + suppressions + "')");
  if (other.patterns != patterns || other.regions != regions)
    refuse("it was analyzed with --patterns " + other.patterns + " --regions " + other.regions +
           ", not --patterns " + patterns + " --regions " + regions);
  if (!other.replay_command.empty() && !replay_command.empty() &&
      other.replay_command != replay_command)
    refuse("its clips were replayed with another program (" + other.replay_command.front() +
           ", not " + replay_command.front() + ")");
  if (replay_command.empty()) replay_command = std::move(other.replay_command);
  for (auto& [position, trace] : other.traces) traces.try_emplace(position, std::move(trace));
  findings.Merge(std::move(other.findings));
}

void WriteTriageState(const std::string& path, const TriageState& state,
                      const std::vector<TriagedFinding>& results) {
  json traces = json::array();
  for (const auto& [position, trace] : state.traces) traces.push_back(TraceState(position, trace));
  json findings = json::array();
  size_t n = 0;
  for (const auto& [key, entry] : state.findings.entries()) {
    const TriagedFinding& written = results.at(n++);
    const SummaryFinding& s = entry.best.summary;
    json events = json::array();
    for (const auto& event : s.events) events.push_back(EventState(event));
    json trace_list = json::array();
    for (const auto& [position, trace] : entry.traces)
      trace_list.push_back(
          {{"position", position}, {"path", trace.first}, {"witnesses", trace.second}});
    const bool replayed = !s.verdict.outcome.empty();
    findings.push_back(
        {{"key", key},
         {"id", s.id},
         {"pattern", s.pattern},
         {"variant", s.variant},
         {"reason", s.reason},
         {"observed", s.observed},
         {"sound", s.sound},
         {"events", std::move(events)},
         {"traces", std::move(trace_list)},
         {"best_position", entry.best_order},
         {"clip", written.summary.clip_path},
         {"clip_trace", s.clip_trace},
         {"clip_steps", s.clip_steps},
         {"clip_error", s.clip_error},
         {"run_labels", RunLabelsState(s.picture)},
         {"verdict", replayed
                         ? VerdictState(s.verdict, s.verdict.failure_clip.empty()
                                                       ? ""
                                                       : "failures/" + written.summary.id + ".clip")
                         : json(nullptr)},
         {"replay_log",
          written.replay_log.empty() ? "" : "replays/" + written.summary.id + ".log"}});
  }
  json document{{"format", kFormat},
                {"version", kVersion},
                {"total_traces", state.total_traces},
                {"inputs_digest", state.inputs_digest},
                {"patterns", state.patterns},
                {"regions", state.regions},
                {"suppressions", state.suppressions},
                {"replay_command", state.replay_command},
                {"traces", std::move(traces)},
                {"findings", std::move(findings)}};
  WriteOutputFile(path, document.dump(1) + "\n");
}

TriageState ReadTriageState(const std::string& dir, const std::string& what) {
  const std::string path = (fs::path(dir) / kTriageStateFile).string();
  std::error_code error;
  if (!fs::is_directory(dir, error))
    throw PecanError(what + ": " + dir +
                     ": not a directory (expected a pecan triage output "
                     "directory)");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw PecanError(what + ": " + dir + ": no " + kTriageStateFile +
                     " (is it the output directory of pecan triage, or of a shard that did not "
                     "finish?)");
  std::stringstream text;
  text << in.rdbuf();
  TriageState state;
  try {
    const json document = json::parse(text.str());
    if (document.value("format", "") != kFormat) throw PecanError("not a pecan triage state file");
    if (document.at("version") != kVersion)
      throw PecanError("version " + document.at("version").dump() + " (this pecan reads " +
                       std::to_string(kVersion) + ")");
    state.total_traces = document.at("total_traces");
    state.inputs_digest = document.at("inputs_digest");
    state.patterns = document.at("patterns");
    state.regions = document.at("regions");
    state.suppressions = document.value("suppressions", "");
    state.replay_command = document.at("replay_command").get<std::vector<std::string>>();
    for (const auto& t : document.at("traces")) {
      const size_t position = t.at("position");
      if (position >= state.total_traces)
        throw PecanError("trace position " + std::to_string(position) + " is past the " +
                         std::to_string(state.total_traces) + " inputs");
      state.traces[position] = TraceFromState(t);
    }
    for (const auto& f : document.at("findings")) {
      FindingMerger::Entry entry;
      SummaryFinding& s = entry.best.summary;
      s.key = f.at("key");
      s.id = f.at("id");
      s.pattern = f.at("pattern");
      s.variant = f.at("variant");
      s.reason = f.at("reason");
      s.observed = f.at("observed");
      s.sound = f.at("sound");
      for (const auto& e : f.at("events")) s.events.push_back(EventFromState(e));
      for (const auto& t : f.at("traces"))
        entry.traces[t.at("position")] = {t.at("path"), t.at("witnesses")};
      entry.best_order = f.at("best_position");
      s.clip_trace = f.at("clip_trace");
      s.clip_steps = f.at("clip_steps");
      s.clip_error = f.at("clip_error");
      const std::string clip = f.at("clip");
      if (!clip.empty()) {
        const std::string clip_path = InsideDirectory(dir, clip);
        const proto::Clip read = ReadClipFile(clip_path);
        entry.best.clip = StoredClip::Existing(clip_path, read.program());
        s.picture = PictureOfClip(read, s.events);
        RunLabelsFromState(f.value("run_labels", json::object()), s.picture);
      }
      if (!f.at("verdict").is_null()) {
        s.verdict = VerdictFromState(f.at("verdict"));
        if (!s.verdict.failure_clip.empty())
          s.verdict.failure_clip = InsideDirectory(dir, s.verdict.failure_clip);
      }
      const std::string log = f.at("replay_log");
      if (!log.empty()) entry.best.replay_log = InsideDirectory(dir, log);
      const std::string key = s.key;  // `entry` moves away with its summary
      state.findings.Add(key, std::move(entry));
    }
  } catch (const PecanError& e) {
    throw PecanError(what + ": " + path + ": " + e.what());
  } catch (const std::bad_alloc&) {
    throw;  // out of memory, not a malformed file
  } catch (const std::exception& e) {  // malformed JSON, a missing or mistyped field
    throw PecanError(what + ": " + path + ": malformed: " + e.what());
  }
  return state;
}

}  // namespace pecan::workflow
