// The noise strategy of `pecan fuzz` (fuzz_noise.h): targets from a first run, one recorded run
// with the runtime's AtomRace monitor per seed, its findings mapped to the trace's sites.
#include "workflow/fuzz_noise.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "analyzer/code_ranges.h"
#include "analyzer/lockset_table.h"
#include "analyzer/por_index.h"
#include "analyzer/symbolizer.h"
#include "schedgen/clip_builder.h"
#include "schedgen/recorded_run.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/trace_reader.h"
#include "workflow/child_process.h"
#include "workflow/fuzz_observed_races.h"
#include "workflow/replay_runner.h"

namespace pecan::workflow {
namespace {

namespace fs = std::filesystem;

// `pecan record`'s exit status when its --timeout stopped the program.
constexpr int kRecordTimedOut = 124;
// A failing run is replayed as recorded for at most this many events, then seeded.
constexpr uint64_t kRecordedClipSteps = 1'000'000;

// The trace's site of a pc of the run (the module whose load address is the highest at or
// below it), or nullopt.
class SiteFinder {
 public:
  explicit SiteFinder(const Trace& trace) : trace_(trace) {
    for (SiteId s = 0; s < trace.sites.size(); ++s)
      by_module_offset_[{trace.sites[s].module, trace.sites[s].offset}] = s;
  }
  std::optional<SiteId> Find(uint64_t pc) const {
    const ModuleInfo* best = nullptr;
    for (const ModuleInfo& module : trace_.modules)
      if (module.load_address <= pc &&
          (best == nullptr || module.load_address > best->load_address))
        best = &module;
    if (best == nullptr) return std::nullopt;
    const auto it = by_module_offset_.find({best->id, pc - best->load_address});
    if (it == by_module_offset_.end()) return std::nullopt;
    return it->second;
  }

 private:
  const Trace& trace_;
  std::map<std::pair<uint32_t, uint64_t>, SiteId> by_module_offset_;
};

// The runtime's report lines (recorder/noise_sections.h) as fuzz.json `races` entries.
nlohmann::json NoiseFindingsJson(const Trace& trace, const std::string& report_path) {
  nlohmann::json out = nlohmann::json::array();
  std::ifstream in(report_path);
  if (!in) return out;
  Symbolizer symbolizer(trace);
  const SiteFinder sites(trace);
  auto access = [&](uint32_t serial, const std::string& kind, uint64_t pc, uint64_t addr,
                    uint64_t size) {
    const EventKind event_kind = kind == "W" ? EventKind::kWrite : EventKind::kRead;
    const std::string thread = ThreadLabel(trace, serial);
    if (const std::optional<SiteId> site = sites.Find(pc))
      return ObservedAccessJson(trace, symbolizer, thread, event_kind, *site, addr, size);
    char text[32];
    std::snprintf(text, sizeof text, "pc 0x%llx", static_cast<unsigned long long>(pc));
    const std::optional<std::string> variable = symbolizer.NameOfAddress(addr);
    return nlohmann::json{{"thread", thread},
                          {"kind", std::string(EventKindName(event_kind))},
                          {"site", {{"text", text}}},
                          {"variable", variable ? nlohmann::json(*variable) : nlohmann::json()},
                          {"size", size}};
  };
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string type;
    fields >> type >> std::hex;
    if (type == "race") {
      uint64_t addr = 0, size = 0, pc_a = 0, pc_b = 0;
      uint32_t serial_a = 0, serial_b = 0;
      std::string kind_a, kind_b;
      fields >> addr >> std::dec >> size >> serial_a >> kind_a >> std::hex >> pc_a >> std::dec >>
          serial_b >> kind_b >> std::hex >> pc_b;
      if (!fields) continue;
      out.push_back({{"type", "race"},
                     {"first", access(serial_a, kind_a, pc_a, addr, size)},
                     {"second", access(serial_b, kind_b, pc_b, addr, size)}});
    } else if (type == "atomicity") {
      uint64_t addr = 0, pc_1 = 0, pc_2 = 0, pc_3 = 0;
      uint32_t serial_t = 0, serial_u = 0;
      std::string kind_1, kind_2, kind_3;
      fields >> addr >> std::dec >> serial_t >> kind_1 >> std::hex >> pc_1 >> std::dec >>
          serial_u >> kind_2 >> std::hex >> pc_2 >> kind_3 >> pc_3;
      if (!fields) continue;
      out.push_back({{"type", "atomicity"},
                     {"variant", kind_1 + "-" + kind_2 + "-" + kind_3},
                     {"first", access(serial_t, kind_1, pc_1, addr, 1)},
                     {"second", access(serial_u, kind_2, pc_2, addr, 1)},
                     {"third", access(serial_t, kind_3, pc_3, addr, 1)}});
    }
  }
  return out;
}

// The focus file of run n: the instructions of a window of targets (variable) or a window of
// their instructions (location), moved along by n.
void WriteFocus(const std::string& heuristic, const std::vector<NoiseTarget>& targets, size_t n,
                size_t focus, const std::string& path) {
  std::vector<std::pair<std::string, uint64_t>> chosen;
  if (heuristic == "variable" && !targets.empty()) {
    const size_t k = std::min(focus, targets.size());
    for (size_t i = 0; i < k; ++i) {
      const NoiseTarget& target = targets[(n * k + i) % targets.size()];
      chosen.insert(chosen.end(), target.sites.begin(), target.sites.end());
    }
  } else if (heuristic == "location") {
    std::vector<std::pair<std::string, uint64_t>> all;
    std::set<std::pair<std::string, uint64_t>> seen;
    for (const NoiseTarget& target : targets)
      for (const auto& site : target.sites)
        if (seen.insert(site).second) all.push_back(site);
    const size_t k = std::min(focus, all.size());
    for (size_t i = 0; i < k; ++i) chosen.push_back(all[(n * k + i) % all.size()]);
  }
  std::ofstream out(path);
  for (const auto& [module, offset] : chosen) {
    char text[32];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(offset));
    out << "pc " << module << " " << text << "\n";
  }
}

// How the recorded run ended, as a verdict when its replay did not fail.
SummaryVerdict VerdictOfExit(const ChildResult& result, int expect_exit, bool deadlocked) {
  SummaryVerdict verdict;
  verdict.outcome = "exposed";
  const int status = result.exited ? result.exit_status : 128 + result.signal;
  if (result.timed_out || (result.exited && status == kRecordTimedOut)) {
    verdict.failure = "timeout";
    verdict.failure_message = "the run did not end within its time bound";
  } else if (deadlocked) {
    verdict.failure = "deadlock";
    verdict.failure_message = "every thread was blocked in synchronization";
  } else if (status > 128 && status < 128 + 65) {
    verdict.failure = "crashed";
    verdict.signal = status - 128;
    verdict.failure_message = "killed by signal " + std::to_string(verdict.signal);
  } else {
    verdict.failure = "exit";
    verdict.exit_status = status;
    verdict.failure_message =
        "exit status " + std::to_string(status) + " (expected " + std::to_string(expect_exit) + ")";
  }
  return verdict;
}

}  // namespace

std::vector<NoiseTarget> NoiseTargetsOf(const Trace& trace) {
  struct Location {
    std::set<ThreadId> threads;
    bool written = false;
    std::vector<SiteId> sites;
    size_t first = 0;  // order of appearance
  };
  std::map<uint64_t, Location> locations;
  for (EventIndex e = 0; e < trace.size_events(); ++e) {
    if (!IsPlainAccess(trace.kind[e])) continue;
    Location& location = locations[trace.addr[e]];
    if (location.sites.empty()) location.first = e;
    location.threads.insert(trace.thread[e]);
    location.written |= trace.kind[e] == EventKind::kWrite;
    if (std::find(location.sites.begin(), location.sites.end(), trace.site[e]) ==
        location.sites.end())
      location.sites.push_back(trace.site[e]);
  }
  std::vector<uint64_t> order;
  std::set<uint64_t> placed;
  AnalysisOptions options;
  options.patterns = "race";
  for (const Finding& finding : Analyze(trace, options).findings)
    for (EventIndex e : finding.events)
      if (placed.insert(trace.addr[e]).second) order.push_back(trace.addr[e]);
  std::vector<std::pair<size_t, uint64_t>> shared;
  for (const auto& [addr, location] : locations)
    if (location.threads.size() > 1 && location.written && !placed.count(addr))
      shared.push_back({location.first, addr});
  std::sort(shared.begin(), shared.end());
  for (const auto& entry : shared) order.push_back(entry.second);

  Symbolizer symbolizer(trace);
  std::vector<NoiseTarget> targets;
  for (uint64_t addr : order) {
    const auto it = locations.find(addr);
    if (it == locations.end()) continue;
    NoiseTarget target;
    const std::optional<std::string> name = symbolizer.NameOfAddress(addr);
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(addr));
    target.name = name ? *name : text;
    for (SiteId site : it->second.sites) {
      auto module_offset = ModuleOffsetOf(trace, site);
      if (!module_offset.first.empty()) target.sites.push_back(std::move(module_offset));
    }
    if (!target.sites.empty()) targets.push_back(std::move(target));
  }
  return targets;
}

size_t WriteAtomicSections(const std::string& spec_path, const std::string& program,
                           const std::string& out_path) {
  std::ifstream in(spec_path);
  if (!in) throw PecanError("fuzz: cannot read --atomic " + spec_path);
  const std::string module = fs::canonical(program).string();
  std::ofstream out(out_path);
  std::string line;
  size_t number = 0, sections = 0;
  auto write = [&](const char* kind, const std::vector<CodeRange>& ranges) {
    for (const CodeRange& range : ranges) {
      char text[64];
      std::snprintf(text, sizeof text, "%llx %llx", static_cast<unsigned long long>(range.begin),
                    static_cast<unsigned long long>(range.end));
      out << kind << " " << module << " " << text << "\n";
    }
  };
  while (std::getline(in, line)) {
    ++number;
    const std::string where = spec_path + ":" + std::to_string(number) + ": ";
    std::istringstream fields(line);
    std::string kind, what, extra;
    if (!(fields >> kind) || kind[0] == '#') continue;
    if (!(fields >> what) || (fields >> extra && extra[0] != '#'))
      throw PecanError("fuzz: " + where + "expected `function NAME` or `lines FILE:FIRST-LAST`");
    if (kind == "function") {
      const std::vector<CodeRange> ranges = FunctionCode(module, what);
      if (ranges.empty())
        throw PecanError("fuzz: " + where + "no function " + what + " in " + program);
      write("function", ranges);
    } else if (kind == "lines") {
      const size_t colon = what.rfind(':');
      const size_t dash = what.find('-', colon == std::string::npos ? 0 : colon);
      int first = 0, last = 0;
      if (colon == std::string::npos || colon == 0 ||
          std::sscanf(what.c_str() + colon + 1, "%d", &first) != 1 ||
          (dash != std::string::npos && std::sscanf(what.c_str() + dash + 1, "%d", &last) != 1))
        throw PecanError("fuzz: " + where +
                         "expected `lines FILE:FIRST-LAST`, e.g. lines main.c:20-24");
      if (dash == std::string::npos) last = first;
      const std::vector<CodeRange> ranges = LineCode(module, what.substr(0, colon), first, last);
      if (ranges.empty() || first <= 0 || last < first)
        throw PecanError("fuzz: " + where + "no code for " + what + " in " + program +
                         " (built with -g?)");
      write("lines", ranges);
    } else {
      throw PecanError("fuzz: " + where + "expected `function NAME` or `lines FILE:FIRST-LAST`");
    }
    ++sections;
  }
  if (sections == 0) throw PecanError("fuzz: --atomic " + spec_path + " lists no atomic section");
  return sections;
}

uint32_t DefaultNoiseFrequency(const std::string& heuristic) {
  return heuristic == "random" ? 20 : 200;
}

size_t DefaultNoiseFocus(const std::string& heuristic) {
  return heuristic == "location" ? 4 : 2;
}

FuzzRun RunNoiseOnce(const NoiseSettings& settings, const std::vector<NoiseTarget>& targets,
                     uint64_t seed, size_t n, const std::string& trace_path,
                     const std::string& report_path, const std::string& focus_path,
                     const std::string& log_path, const std::string& clip_path,
                     const std::string& replay_log) {
  FuzzRun run;
  run.seed = seed;
  run.noise = true;
  const uint32_t frequency =
      settings.frequency != 0 ? settings.frequency : DefaultNoiseFrequency(settings.heuristic);
  const size_t focus = settings.focus != 0 ? settings.focus : DefaultNoiseFocus(settings.heuristic);
  fs::remove(report_path);
  char bound[32];
  std::snprintf(bound, sizeof bound, "%g", settings.timeout);
  // Every repeated access recorded: the trace of a failing run must replay its interleaving.
  ChildSpec spec;
  spec.argv = {SelfExecutable(),
               "record",
               "-o",
               trace_path,
               "--expect-exit",
               std::to_string(settings.expect_exit),
               "--timeout",
               bound,
               "--repeats",
               "all",
               "--"};
  spec.argv.insert(spec.argv.end(), settings.command.begin(), settings.command.end());
  spec.stdout_path = log_path;
  spec.stderr_path = log_path;
  spec.environment = {{"PECAN_NOISE_REPORT", report_path},
                      {"PECAN_NOISE", settings.heuristic},
                      {"PECAN_NOISE_FREQUENCY", std::to_string(frequency)},
                      {"PECAN_NOISE_STRENGTH", std::to_string(settings.strength)},
                      {"PECAN_NOISE_SEED", std::to_string(seed)}};
  if (!settings.atomic_sections.empty())
    spec.environment["PECAN_NOISE_ATOMIC"] = settings.atomic_sections;
  if (settings.heuristic != "random") {
    WriteFocus(settings.heuristic, targets, n, focus, focus_path);
    spec.environment["PECAN_NOISE_FOCUS"] = focus_path;
  }
  // The record child's own bound ends a hang; ours only guards against pecan itself hanging.
  spec.timeout_seconds = settings.timeout + 60;
  const ChildResult result = RunChild(spec);
  run.verdict.seconds = result.seconds;
  run.verdict.outcome = "passed";
  if (!fs::exists(trace_path)) {
    const std::string why = LastPecanError(log_path);
    run.verdict.outcome = "error";
    run.verdict.reason = why.empty() ? "the run left no trace (see " + log_path + ")" : why;
    return run;
  }
  try {
    const Trace trace = ReadTrace(trace_path);
    run.verdict.events = trace.size_events();
    run.verdict.races = NoiseFindingsJson(trace, report_path);
    run.verdict.races_total = run.verdict.races.size();
    const int status = result.exited ? result.exit_status : 128 + result.signal;
    const bool deadlocked = result.exited && status == kDeadlockExitStatus &&
                            !TraceReader(trace_path).meta().blocked_threads.empty();
    if (status != settings.expect_exit || result.timed_out) {
      // The failure happened; its recorded clip, replayed, makes it happen again.
      SummaryVerdict exited = VerdictOfExit(result, settings.expect_exit, deadlocked);
      const PorIndex por(trace);
      const ClipPlan plan = RecordedRunPlan(trace, por, kRecordedClipSteps);
      if (plan.ok) {
        Finding finding;
        finding.id = "noise-run-" + std::to_string(seed);
        finding.pattern = "recorded";
        const LocksetTable locksets(trace);
        const std::string recorded = clip_path + ".recorded";
        WriteClipFile(recorded,
                      ClipFromPlan(trace, locksets, finding, plan, TraceContentHash(trace_path)));
        const ReplayRunSettings replay{settings.timeout * 3, settings.expect_exit, "", {}};
        SummaryVerdict replayed =
            ReplayClip(recorded, settings.command, replay, replay_log, clip_path);
        fs::remove(recorded);
        if (!replayed.failure.empty()) {
          replayed.races = std::move(run.verdict.races);
          replayed.races_total = run.verdict.races_total;
          replayed.seconds = run.verdict.seconds;
          replayed.events = run.verdict.events;
          run.verdict = std::move(replayed);
          return run;
        }
        exited.reason = "its recorded clip, replayed, did not fail (" + replayed.outcome +
                        (replayed.reason.empty() ? "" : ": " + replayed.reason) + ")";
      } else {
        exited.reason = "no clip of the recorded run: " + plan.reason;
      }
      exited.races = std::move(run.verdict.races);
      exited.races_total = run.verdict.races_total;
      exited.seconds = run.verdict.seconds;
      exited.events = run.verdict.events;
      run.verdict = std::move(exited);
    }
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is the whole command's, not this trace's (cli/main.cpp says so)
  } catch (const std::exception& error) {
    run.verdict.outcome = "error";
    run.verdict.reason = std::string("its trace cannot be read: ") + error.what();
  }
  return run;
}

void PrintNoiseFindings(std::ostream& out, const std::vector<FuzzRun>& runs) {
  std::vector<std::pair<std::string, size_t>> distinct;  // description, runs
  size_t runs_with_any = 0;
  for (const FuzzRun& run : runs) {
    std::set<std::string> in_run;
    for (const nlohmann::json& finding : run.verdict.races) {
      std::string text = finding.value("type", "race");
      if (finding.contains("variant")) text += " " + finding["variant"].get<std::string>();
      const nlohmann::json& variable = finding["first"]["variable"];
      if (variable.is_string()) text += " on '" + variable.get<std::string>() + "'";
      text += ":";
      for (const char* part : {"first", "second", "third"})
        if (finding.contains(part))
          text += " " + finding[part]["kind"].get<std::string>() + " " +
                  finding[part]["site"]["text"].get<std::string>();
      in_run.insert(text);
    }
    runs_with_any += !in_run.empty();
    for (const std::string& text : in_run) {
      auto it = std::find_if(distinct.begin(), distinct.end(),
                             [&](const auto& entry) { return entry.first == text; });
      if (it == distinct.end())
        distinct.push_back({text, 1});
      else
        ++it->second;
    }
  }
  out << "\nCaught as they happened (AtomRace): " << distinct.size() << " distinct race"
      << (distinct.size() == 1 ? "" : "s") << " or atomicity violation"
      << (distinct.size() == 1 ? "" : "s") << ", in " << runs_with_any << " of " << runs.size()
      << " runs\n";
  for (const auto& [text, count] : distinct)
    out << "  " << text << "  (" << count << " run" << (count == 1 ? "" : "s") << ")\n";
}

}  // namespace pecan::workflow
