#include "workflow/triage_report.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/output_file.h"
#include "workflow/finding_groups.h"
#include "workflow/html_summary.h"
#include "workflow/replay_runner.h"
#include "workflow/source_excerpt.h"
#include "workflow/summary_json.h"
#include "workflow/summary_sarif.h"
#include "workflow/verdict_place_names.h"

namespace pecan::workflow {
namespace {

namespace fs = std::filesystem;

std::string Plural(size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// Copies a file a part's replay left to `target` (claimed in the output directory), unless it is
// that file already.
void CopyInto(const std::string& source, const std::string& target, const std::string& command) {
  std::error_code error;
  if (fs::equivalent(source, target, error)) return;
  fs::copy_file(source, target, fs::copy_options::overwrite_existing, error);
  if (error)
    throw PecanError(command + ": cannot copy " + source + " to " + target + ": " +
                     error.message());
}

}  // namespace

const std::vector<std::string> kTriageFiles = {"summary.json",   "summary.sarif", "summary.html",
                                               kTriageStateFile, "clips/",        "replays/",
                                               "failures/"};

bool ReplaysWith(const TriagedFinding& finding, const std::vector<std::string>& command) {
  return finding.clip != nullptr && !command.empty() &&
         BaseName(finding.clip->program()) == BaseName(command.front());
}

std::vector<TriagedFinding> WriteTriageClips(const TriageState& state, OutputDirectory& output) {
  std::vector<TriagedFinding> results = state.findings.Results();
  for (TriagedFinding& finding : results) {
    SummaryFinding& summary = finding.summary;
    if (finding.clip != nullptr) {
      summary.clip_path = "clips/" + summary.id + ".clip";
      const std::string clip_file = output.Claim(summary.clip_path);
      CopyInto(finding.clip->path(), clip_file, "triage");
      if (ReplaysWith(finding, state.replay_command))
        summary.replay_command = ReplayCommandLine(clip_file, state.replay_command);
    }
    if (!summary.verdict.failure_clip.empty()) {
      const std::string target = output.Claim("failures/" + summary.id + ".clip");
      CopyInto(summary.verdict.failure_clip, target, "triage");
      // Absolute, as pecan replay names the failure clips it writes.
      summary.verdict.failure_clip = fs::absolute(target).lexically_normal().string();
    }
    if (!finding.replay_log.empty()) {
      const std::string target = output.Claim("replays/" + summary.id + ".log");
      CopyInto(finding.replay_log, target, "triage");
      finding.replay_log = target;
    }
  }
  return results;
}

int WriteTriageSummaries(const TriageState& state, const std::vector<TriagedFinding>& results,
                         OutputDirectory& output, const TriageReportSettings& settings) {
  const bool replayed = !state.replay_command.empty();
  std::vector<SummaryTrace> traces;
  for (const auto& [position, trace] : state.traces) traces.push_back(trace);
  std::vector<SummaryFinding> findings;
  size_t other_program = 0;
  for (const TriagedFinding& finding : results) {  // copied: the state file needs them after
    other_program +=
        replayed && finding.clip != nullptr && !ReplaysWith(finding, state.replay_command);
    findings.push_back(finding.summary);
  }
  std::stable_sort(findings.begin(), findings.end(), SummaryOrder);

  size_t damaged = 0, truncated = 0, out_of_memory = 0, confirmed = 0, exposed = 0, refuted = 0, replay_errors = 0,
         no_clip = 0;
  for (const auto& t : traces) {
    damaged += t.status == "damaged";
    truncated += t.status == "truncated";
    out_of_memory += t.status == "out of memory";
  }
  for (const auto& f : findings) {
    confirmed += f.verdict.confirmed();
    exposed += f.verdict.outcome == "exposed";
    refuted += f.verdict.outcome == "infeasible";
    replay_errors += f.verdict.outcome == "error";
    no_clip += f.clip_path.empty();
  }
  // Traces no part covered: a shard that did not run, or a merge of some of the parts.
  const size_t missing = settings.shard.empty() ? state.total_traces - traces.size() : 0;

  nlohmann::json traces_json = nlohmann::json::array();
  for (const auto& t : traces) traces_json.push_back(TraceJson(t));
  nlohmann::json counts{{"traces", traces.size()},
                        {"damaged", damaged},
                        {"truncated", truncated},
                        {"out_of_memory", out_of_memory},
                        {"findings", findings.size()},
                        {"confirmed", confirmed},
                        {"exposed", exposed},
                        {"refuted", refuted},
                        {"replay_errors", replay_errors},
                        {"not_replayed_other_program", other_program},
                        {"no_clip", no_clip}};
  // A part says which; a whole triage (or a complete merge) writes no such keys.
  if (!settings.shard.empty() || missing > 0) counts["inputs"] = state.total_traces;
  if (missing > 0) counts["missing"] = missing;
  const std::vector<FindingGroup> groups = GroupFindings(findings);
  counts["bugs"] = groups.size();
  nlohmann::json findings_json = FindingsJson(findings);
  MarkBugs(findings_json, groups);
  nlohmann::json summary{{"tool", "pecan triage"},
                         {"replayed", replayed},
                         {"counts", std::move(counts)},
                         {"traces", std::move(traces_json)},
                         {"bugs", GroupsJson(groups, findings)},
                         {"findings", std::move(findings_json)}};
  if (!settings.shard.empty()) summary["shard"] = settings.shard;
  if (replayed) summary["command"] = state.replay_command;
  WriteOutputFile(output.Claim("summary.json"), summary.dump(2) + "\n");
  const std::string source_root = ResolveSourceRoot(settings.source_root);
  WriteOutputFile(output.Claim("summary.sarif"),
                  SummarySarif(findings, source_root).dump(2) + "\n");
  WriteOutputFile(output.Claim("summary.html"),
                  RenderSummaryHtml("pecan triage", traces, findings, "", source_root));
  // Last: its presence says the part is complete (a merge waiting for parts looks for it).
  WriteTriageState(output.Claim(kTriageStateFile), state, results);

  std::cout << "pecan " << settings.command << ": ";
  if (!settings.shard.empty())
    std::cout << "shard " << settings.shard << ", " << traces.size() << " of "
              << Plural(state.total_traces, "trace");
  else
    std::cout << Plural(traces.size(), "trace");
  std::cout << " (" << damaged << " damaged and skipped, " << truncated << " truncated";
  if (out_of_memory > 0) std::cout << ", " << out_of_memory << " out of memory and skipped";
  std::cout << "), "
            << Plural(findings.size(), "distinct finding") << " in "
            << Plural(groups.size(), "bug");
  if (replayed) {
    std::cout << "; replay: " << confirmed << " confirmed, ";
    if (exposed > 0) std::cout << exposed << " made the program fail otherwise, ";
    std::cout << refuted << " refuted, " << replay_errors << " failed to run";
    if (other_program > 0)
      std::cout << ", " << other_program << " not replayed (recorded from another program)";
  }
  std::cout << "\n";
  for (const auto& t : traces)
    if (t.status == "damaged" || t.status == "out of memory")
      std::cout << "  " << t.status << ": " << t.error << "\n";
  // One entry per bug, strongest evidence first; refuted ones in a line of their own at the end.
  SourceExcerpts sources(source_root);
  std::vector<size_t> refuted_groups;
  for (size_t n = 0; n < groups.size(); n++) {
    const FindingGroup& g = groups[n];
    if (g.evidence == Evidence::kRefuted) {
      refuted_groups.push_back(n);
      continue;
    }
    std::cout << "  " << n + 1 << ". " << g.title << " [" << EvidenceName(g.evidence) << "] in "
              << Plural(g.traces, "trace") << ", " << Plural(g.members.size(), "variant") << "\n";
    for (const SummarySite& site : g.sites) {
      std::cout << "       at " << sources.DisplaySite(site) << "\n";
      for (const auto& [number, text] : sources.Around(site, 1))  // its line marked with >
        std::cout << "       " << (number == site.line ? "> " : "  ") << number << " | " << text
                  << "\n";
    }
    for (size_t i : g.members) {
      const SummaryFinding& f = findings[i];
      std::cout << "       - " << f.pattern << " " << f.variant << " (" << f.id << ")";
      if (!f.verdict.outcome.empty()) std::cout << " [" << VerdictText(f.verdict) << "]";
      if (f.clip_path.empty()) std::cout << " [no feasible clip]";
      std::cout << "\n";
      for (const auto& event : f.events)
        std::cout << "           " << event.thread_name << " " << event.kind << "  "
                  << sources.DisplaySite(event.site) << "\n";
      if (f.verdict.outcome == "error")
        std::cout << "           replay failed: " << f.verdict.reason << "\n";
      if (f.verdict.outcome == "exposed")
        std::cout << "           replay made it fail: " << f.verdict.reason << "\n";
      if (!f.verdict.failure_clip.empty())
        std::cout << "           reproduce: "
                  << ReplayCommandLine(f.verdict.failure_clip, state.replay_command) << "\n";
    }
  }
  if (!refuted_groups.empty()) {
    size_t predictions = 0;
    for (size_t n : refuted_groups) predictions += groups[n].members.size();
    std::cout << "  Refuted by replay: " << Plural(refuted_groups.size(), "bug") << " ("
              << Plural(predictions, "prediction") << "):";
    for (size_t k = 0; k < refuted_groups.size(); k++)
      std::cout << (k == 0 ? " " : "; ") << groups[refuted_groups[k]].title;
    std::cout << " (details in summary.html)\n";
  }
  const std::string& dir = output.path();
  std::cout << "Summary: " << dir << "/summary.html, summary.json, summary.sarif; clips in " << dir
            << "/clips\n";
  if (missing > 0)
    std::cerr << "pecan: warning: " << settings.command << ": " << missing << " of the "
              << Plural(state.total_traces, "input trace")
              << " are in none of the parts merged (a shard that did not finish?)\n";
  if (!settings.shard.empty()) return 0;
  if (!traces.empty() && out_of_memory > 0 && damaged + out_of_memory == traces.size()) {
    std::cerr << "pecan: error: " << settings.command
              << ": no trace was analyzed: out of memory (see --max-memory)"
              << (damaged > 0 ? ", or damaged" : "") << "\n";
    return 3;
  }
  if (!traces.empty() && damaged == traces.size()) {
    std::cerr << "pecan: error: " << settings.command
              << ": every trace is damaged; nothing was analyzed\n";
    return 2;
  }
  if (confirmed > 0 || exposed > 0) return 1;
  return replay_errors > 0 ? 2 : 0;
}

}  // namespace pecan::workflow
