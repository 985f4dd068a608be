// `pecan hunt`: the whole chain in one run. Records one run, predicts the anomalies, writes a
// clip for each, replays every clip (N at a time) and reports what the replays confirmed, with
// the command that reproduces each.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "analyzer/analysis_trace.h"
#include "analyzer/report_events.h"
#include "analyzer/builtin_patterns.h"
#include "analyzer/por_index.h"
#include "analyzer/symbolizer.h"
#include "schedgen/clip_builder.h"
#include "schedgen/recorded_run.h"
#include "schedgen/schedule_generator.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/output_file.h"
#include "trace_format/trace_reader.h"
#include "workflow/before_each.h"
#include "workflow/child_process.h"
#include "workflow/clip_picture.h"
#include "workflow/finding_groups.h"
#include "workflow/finding_summary.h"
#include "workflow/finding_view.h"
#include "workflow/html_summary.h"
#include "workflow/hunt.h"
#include "workflow/hunt_explore.h"
#include "workflow/hunt_followups.h"
#include "workflow/hunt_ranking.h"
#include "workflow/job_runner.h"
#include "workflow/output_directory.h"
#include "workflow/progress_warnings.h"
#include "workflow/replay_runner.h"
#include "workflow/report_files.h"
#include "workflow/source_excerpt.h"
#include "workflow/summary_json.h"
#include "workflow/summary_sarif.h"
#include "workflow/suppressions_file.h"

namespace pecan::workflow {
namespace {

namespace fs = std::filesystem;

std::string Plural(size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// What hunt writes in DIR. A previous hunt's files there are removed first, so nothing stale is
// mistaken for new; anyone else's refuse the hunt before it starts (workflow/output_directory.h).
const std::vector<std::string> kHuntFiles = {
    "trace.pecan", "report.json", "report.sarif", "report.html", "verdicts.json",
    "record.log",  "clips/",      "replays/",     "failures/",   "explore/",
    "flips/"};

// What can be checked before anything runs, so a mistake costs no recording and leaves a
// previous hunt's DIR alone: the program, and the pattern spec (a list or a pattern file).
void CheckOptions(const HuntOptions& options) {
  if (options.command.empty())
    throw PecanError("hunt: no program given (pecan hunt -- PROGRAM [ARGS...])");
  RequireExecutable(options.command.front(), "hunt: ");
  try {  // a bad spec fails here, before the program runs
    SelectPatterns(options.patterns);
  } catch (const PecanError& e) {
    throw PecanError("hunt: " + std::string(e.what()));
  }
}

// Exploring: anomalies continued with other tails, critical-section flips replayed (at most).
constexpr size_t kContinuedFindings = 8;
constexpr size_t kMaxFlips = 256;

// `pecan record`'s exit status when its --timeout stopped the program.
constexpr int kRecordTimedOut = 124;

// Records the program with `pecan record`, as the user would; its output goes to record.log.
// Returns whether the run did not end: --record-timeout stopped it (a deadlock or a hang), or
// the runtime ended it because every thread was blocked (a deadlock, kDeadlockExitStatus with
// the wait-for state in the trace; a program that exits 86 by itself has none).
bool Record(const HuntOptions& options, const std::string& trace_path,
            const std::string& log_path) {
  char bound[32];
  std::snprintf(bound, sizeof bound, "%g", options.record_timeout);
  ChildSpec spec;
  spec.argv = {SelfExecutable(), "record",        "-o",
               trace_path,       "--expect-exit", std::to_string(options.expect_exit),
               "--timeout",      bound,           "--"};
  spec.argv.insert(spec.argv.end(), options.command.begin(), options.command.end());
  spec.stdout_path = log_path;
  spec.stderr_path = log_path;
  ChildResult result = RunChild(spec);
  const std::string ended = result.exited ? "exit status " + std::to_string(result.exit_status)
                                          : "killed by signal " + std::to_string(result.signal);
  // `pecan record` says why a recording is unusable in one "pecan: error: record: ..." line (not
  // built for recording, no events, say); the program's own output may surround it.
  std::string why = LastPecanError(log_path);
  if (!fs::exists(trace_path) || !why.empty()) {
    if (why.rfind("record: ", 0) == 0) why.erase(0, 8);
    if (why.empty()) why = "the recording left no trace (" + ended + ")";
    throw PecanError("hunt: cannot record " + options.command.front() + ": " + why +
                     " (the full output is in " + log_path + ")");
  }
  const bool timed_out = result.exited && result.exit_status == kRecordTimedOut;
  const bool deadlocked = result.exited && result.exit_status == kDeadlockExitStatus &&
                          !TraceReader(trace_path).meta().blocked_threads.empty();
  std::cout << "pecan hunt: recorded " << options.command.front() << " into " << trace_path << " ("
            << (timed_out    ? "stopped after " + std::string(bound) + " s"
                : deadlocked ? std::string("ended by pecan: every thread was blocked")
                             : ended)
            << "); its output is in " << log_path << "\n";
  if (timed_out) {
    std::cout << "pecan hunt: the recorded run did not end within " << bound
              << " s (--record-timeout): a deadlock or a hang; its recorded clip shows where\n";
  } else if (deadlocked) {
    std::cout << "pecan hunt: the recorded run could not go on (every thread was blocked in "
                 "synchronization): a deadlock; its recorded clip shows where\n";
  } else if (!result.exited || result.exit_status != options.expect_exit) {
    std::cout << "pecan hunt: note: the recorded run itself failed\n";
  }
  return timed_out || deadlocked;
}

// A recorded run that did not end, replayed as recorded: the replay stops where the run did and
// says who waits for what. Its verdict is the observed deadlock or hang. A long run is replayed
// as recorded for its first kRecordedClipSteps events and goes on under the seeded schedule
// from there (a spinning thread records millions of events a second).
constexpr uint64_t kRecordedClipSteps = 1'000'000;

struct ObservedHang {
  std::string clip_path;
  SummaryVerdict verdict;
  std::string error;  // no clip, or the replay could not run
};

ObservedHang ReplayRecordedHang(const HuntOptions& options, const Trace& trace, const PorIndex& por,
                                const LocksetTable& locksets, const std::string& trace_hash,
                                OutputDirectory& output) {
  ObservedHang hang;
  const ClipPlan plan = RecordedRunPlan(trace, por, kRecordedClipSteps);
  if (!plan.ok) {
    hang.error = plan.reason;
    return hang;
  }
  Finding run;
  run.id = "recorded";
  run.pattern = "recorded";
  hang.clip_path = output.Claim("clips/recorded.clip");
  WriteClipFile(hang.clip_path, ClipFromPlan(trace, locksets, run, plan, trace_hash));
  // The replay re-lives the recorded run (its sleeps included) before it can show where it
  // stays: it gets twice the recording's time on top of a replay's.
  const ReplayRunSettings settings{options.timeout + 2 * options.record_timeout,
                                   options.expect_exit, options.before_each, {}};
  hang.verdict =
      ReplayClip(hang.clip_path, options.command, settings, output.Claim("replays/recorded.log"),
                 output.Claim("failures/recorded.clip"));
  if (hang.verdict.failure != "deadlock" && hang.verdict.failure != "timeout")
    hang.error = "its replay did not stop as the run did (" +
                 (hang.verdict.failure.empty() ? hang.verdict.outcome + ": " + hang.verdict.reason
                                               : hang.verdict.failure) +
                 ")";
  return hang;
}

void PrintFinding(const std::string& number, const SummaryFinding& finding,
                  const std::vector<std::string>& command, const SourceExcerpts& sources) {
  std::string variable;
  for (const auto& event : finding.events)
    if (variable.empty() && !event.variable.empty()) variable = event.variable;
  std::cout << number << ". " << finding.pattern << " " << finding.variant;
  if (!variable.empty() && finding.pattern != "deadlock") std::cout << " on '" << variable << "'";
  if (finding.sound) std::cout << " (sound: a WCP race)";
  if (finding.verdict.outcome == "deadlocked") {
    std::cout << "  [confirmed: the replay deadlocked]";
  } else if (finding.verdict.outcome == "hatched") {
    std::cout << "  [confirmed"
              << (finding.verdict.failure.empty()
                      ? ""
                      : "; then the program failed: " + finding.verdict.failure)
              << (finding.verdict.signal != 0 && finding.verdict.failure == "crashed"
                      ? " (signal " + std::to_string(finding.verdict.signal) + ")"
                      : "")
              << "]";
  } else if (finding.verdict.outcome == "exposed") {
    std::cout << "  [its replay made the program fail: " << finding.verdict.failure << "]";
  }
  std::cout << "\n";
  const bool deadlock = finding.pattern == "deadlock";
  for (size_t i = 0; i < finding.events.size(); ++i) {
    const auto& event = finding.events[i];
    // A deadlock's events are, per thread, the lock it holds and the one it then requests.
    const std::string lock = event.variable.empty() ? "a lock" : "'" + event.variable + "'";
    const std::string what = deadlock ? (i % 2 == 0 ? "holds " : "requests ") + lock : event.kind;
    std::cout << "     " << event.thread_name << " " << what << "  "
              << sources.DisplaySite(event.site) << "\n";
  }
  if (finding.verdict.outcome == "exposed")
    std::cout << "   what happened: " << finding.verdict.reason << "\n";
  else if (!finding.verdict.failure_message.empty())
    std::cout << "   then: " << finding.verdict.failure_message << "\n";
  if (!finding.replay_command.empty()) std::cout << "   replay: " << finding.replay_command << "\n";
  if (!finding.verdict.failure_clip.empty()) {
    std::cout << "   reproduce the failure: "
              << ReplayCommandLine(finding.verdict.failure_clip, command) << "\n";
  }
}

}  // namespace

int RunHunt(const HuntOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  CheckOptions(options);
  // Read before the program runs: a bad file stops the hunt at once.
  const auto suppressions = LoadSuppressions(options.suppressions, "hunt");
  const std::string dir = options.output;
  OutputDirectory output(dir, "hunt", kHuntFiles);
  const std::string trace_path = output.Claim("trace.pecan");
  RunBeforeEach(options.before_each, "hunt");
  const bool record_timed_out = Record(options, trace_path, output.Claim("record.log"));

  AnalysisOptions analysis_options;
  analysis_options.patterns = options.patterns;
  analysis_options.suppressions = suppressions;
  analysis_options.regions =
      options.regions == "functions" ? RegionMode::kFunctions : RegionMode::kLocks;
  analysis_options.max_per_site = options.max_per_site;
  analysis_options.progress = true;
  // The analysis first, on the events it can use; then the whole trace, for the clips: the two
  // are never in memory together.
  AnalysisResult analysis = AnalyzeTraceFile(trace_path, analysis_options, /*show_progress=*/true,
                                             /*log_warnings=*/false);
  const Trace trace = ReadTrace(trace_path, /*show_progress=*/true);  // warns of a truncated file
  for (const std::string& notice : StoppedPatternNotices(analysis.stats))
    std::cerr << "pecan hunt: note: " << notice << "\n";
  Symbolizer symbolizer(trace);
  const std::string report_path = output.Claim("report.json");
  WriteJsonReportFile(trace, trace_path, analysis, symbolizer, report_path);

  const std::string trace_hash = TraceContentHash(trace_path);
  PorIndex por(trace);
  ScheduleGenerator generator(trace, por);
  const LocksetTable locksets(trace);
  std::vector<SummaryFinding> findings;
  const EventContexts contexts(trace, EventsOf(analysis.findings));
  for (const Finding& finding : analysis.findings) {
    SummaryFinding summary = SummarizeFinding(trace, symbolizer, finding, &contexts);
    summary.traces = {trace_path};
    findings.push_back(std::move(summary));
  }
  // Rank before replaying (hunt_ranking.h): sound races first, one replay per pattern and set
  // of sites. No replay starts once --budget is spent.
  const ReplayPlan plan = PlanReplays(trace, por, analysis.findings);
  std::set<std::string> variant_ids;  // not replayed: another variant on their sites was
  for (size_t i = 0; i < findings.size(); i++) {
    findings[i].sound = plan.sound[i];
    if (plan.represented_by[i] != i && variant_ids.insert(findings[i].id).second)
      findings[i].verdict.reason = "not replayed: a variant on the same sites, " +
                                   findings[plan.represented_by[i]].id + ", was replayed";
  }
  const std::vector<size_t>& ranked = plan.order;
  const size_t variants = findings.size() - ranked.size();
  // A finding's clip, written when its turn to be replayed comes: a hunt that predicts
  // thousands writes only what its budget replays. The generator validates each clip first.
  auto make_clip = [&](size_t i) {
    const Finding& finding = analysis.findings[i];
    SummaryFinding& summary = findings[i];
    const ClipPlan plan = generator.Generate(finding);
    if (!plan.ok) {
      summary.clip_error = plan.reason;
      return;
    }
    proto::Clip clip = ClipFromPlan(trace, locksets, finding, plan, trace_hash);
    summary.clip_path = output.Claim("clips/" + finding.id + ".clip");
    WriteClipFile(summary.clip_path, clip);
    summary.clip_trace = trace_path;
    summary.clip_steps = plan.steps.size();
    summary.picture = PictureOfClip(clip, summary.events);
    LabelRunsFromTrace(summary.picture, clip, trace, symbolizer);
    summary.replay_command = ReplayCommandLine(summary.clip_path, options.command);
  };
  auto budget_left = [&] {
    return options.budget -
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  const size_t sound = static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(), [](const auto& f) { return f.sound; }));
  std::cout << "pecan hunt: " << Plural(trace.size_events(), "event") << ", "
            << Plural(findings.size(), "prediction");
  if (sound > 0) std::cout << " (" << sound << " sound)";
  if (variants > 0)
    std::cout << ", " << Plural(ranked.size(), "replay") << " (" << variants
              << " variants on the same sites left out)";
  if (analysis.stats.suppressed > 0)
    std::cout << " (and " << analysis.stats.suppressed << " hidden by --suppressions)";
  if (analysis.stats.capped > 0)
    std::cout << " (and " << analysis.stats.capped << " past --max-per-site)";
  const ReplayRunSettings replay{options.timeout, options.expect_exit, options.before_each, {}};
  const size_t jobs = replay.ParallelReplays(options.jobs);
  if (!findings.empty()) std::cout << "; replaying " << jobs << " at a time";
  std::cout << std::endl;

  if (!findings.empty()) {
    // On a terminal, a bar of predictions done (a hunt of a real program replays for minutes).
    ProgressWithWarnings progress("pecan hunt: replaying " + Plural(ranked.size(), "prediction"),
                                  ranked.size());
    progress.Update(0);
    size_t done = 0;
    std::atomic<size_t> confirmed_so_far{0};
    // In batches, in rank order: the clips of a batch are written, then replayed in parallel.
    const size_t batch = std::max<size_t>(4 * jobs, 8);
    for (size_t first = 0; first < ranked.size(); first += batch) {
      const size_t count = std::min(batch, ranked.size() - first);
      std::vector<size_t> replayable;
      for (size_t k = first; k < first + count; k++) {
        if (budget_left() <= 0) {
          findings[ranked[k]].verdict.reason = "not replayed: the --budget was spent";
          continue;
        }
        make_clip(ranked[k]);
        if (!findings[ranked[k]].clip_path.empty()) replayable.push_back(ranked[k]);
      }
      done += count - replayable.size();
      progress.Update(done, std::to_string(confirmed_so_far.load()) + " confirmed");
      RunJobs(
          replayable.size(), jobs,
          [&](size_t n) {
            SummaryFinding& finding = findings[replayable[n]];
            if (budget_left() <= 0) {
              finding.verdict.reason = "not replayed: the --budget was spent";
              return;
            }
            const std::string log = output.Claim("replays/" + finding.id + ".log");
            const std::string failure_clip = output.Claim("failures/" + finding.id + ".clip");
            finding.verdict =
                ReplayClip(finding.clip_path, options.command, replay, log, failure_clip);
            if (finding.verdict.confirmed()) confirmed_so_far++;
          },
          [&](size_t) {
            progress.Update(++done, std::to_string(confirmed_so_far.load()) + " confirmed");
          });
    }
  }

  std::optional<ObservedHang> hang;
  if (record_timed_out)
    hang = ReplayRecordedHang(options, trace, por, locksets, trace_hash, output);

  // Nothing failed yet: the rest of the budget explores schedules the prediction did not reach.
  std::optional<ExploreResult> explored;
  const bool failed_already =
      record_timed_out || std::any_of(findings.begin(), findings.end(),
                                      [](const auto& f) { return !f.verdict.failure.empty(); });
  if (options.explore && !failed_already && options.before_each.empty()) {
    ExploreSettings explore;
    explore.command = options.command;
    explore.expect_exit = options.expect_exit;
    explore.run_timeout = std::min(options.timeout, 10.0);
    explore.jobs = options.jobs;
    explore.seconds =
        options.budget -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    explore.directory = (std::filesystem::path(output.path()) / "explore").string();
    // First the replays hunt plans itself (hunt_followups.h): continuations of the anomalies
    // that hatched without a failure, then critical-section flips; then pecan fuzz.
    explore.replays = ContinuationReplays(findings, kContinuedFindings);
    explore.replay_timeout = options.timeout;
    std::vector<ExploreReplay> flips =
        FlipReplays(trace, por, generator, trace_hash, output, kMaxFlips);
    std::move(flips.begin(), flips.end(), std::back_inserter(explore.replays));
    if (std::any_of(analysis.findings.begin(), analysis.findings.end(),
                    [](const Finding& f) { return f.pattern == "race"; }))
      explore.races_report = report_path;
    if (explore.seconds >= 1) {
      std::cout << "pecan hunt: no replay made the program fail; exploring schedules for "
                << static_cast<long>(explore.seconds) << " s (--budget)" << std::endl;
      explored = Explore(explore);
    }
  }

  std::stable_sort(findings.begin(), findings.end(), SummaryOrder);
  size_t confirmed = 0, exposed = 0, refuted = 0, errors = 0, no_clip = 0, not_replayed = 0;
  for (const auto& f : findings) {
    if (variant_ids.count(f.id))
      continue;  // counted in `variants`
    else if (f.clip_path.empty() && !f.clip_error.empty())
      no_clip++;
    else if (f.verdict.outcome.empty())
      not_replayed++;
    else if (f.verdict.confirmed())
      confirmed++;
    else if (f.verdict.outcome == "exposed")
      exposed++;
    else if (f.verdict.outcome == "infeasible")
      refuted++;
    else
      errors++;
  }

  // One entry per bug (finding_groups.h): every variant stays in "findings", with its "bug".
  const std::vector<FindingGroup> groups = GroupFindings(findings);
  nlohmann::json findings_json = FindingsJson(findings);
  MarkBugs(findings_json, groups);
  nlohmann::json verdicts{
      {"program", options.command.front()},
      {"arguments", std::vector<std::string>(options.command.begin() + 1, options.command.end())},
      {"trace", trace_path},
      {"events", trace.size_events()},
      {"counts",
       {{"predicted", findings.size()},
        {"confirmed", confirmed},
        {"exposed", exposed},
        {"refuted", refuted},
        {"no_clip", no_clip},
        {"not_replayed", not_replayed},
        {"replay_errors", errors},
        {"bugs", groups.size()},
        {"suppressed", analysis.stats.suppressed},
        {"capped", analysis.stats.capped},
        {"variants", variants}}},
      {"bugs", GroupsJson(groups, findings)},
      {"findings", std::move(findings_json)}};
  if (explored) verdicts["explore"] = ExploreJson(*explored, options.command);
  if (hang) {
    // The recorded run itself deadlocked or hung: an observed failure, with its reproducer.
    verdicts["observed_hang"] = {
        {"kind", hang->verdict.failure.empty() ? nlohmann::json(nullptr)
                                               : nlohmann::json(hang->verdict.failure)},
        {"message", hang->verdict.failure_message},
        {"clip", hang->clip_path},
        {"replay_command",
         hang->clip_path.empty() ? "" : ReplayCommandLine(hang->clip_path, options.command)},
        {"error", hang->error.empty() ? nlohmann::json(nullptr) : nlohmann::json(hang->error)}};
  }
  // Whole or not at all (a full disk leaves no empty file): trace_format/output_file.h.
  WriteOutputFile(output.Claim("verdicts.json"), verdicts.dump(2) + "\n");
  // After replay, so what code scanning shows is what replay found (refuted ones left out).
  const std::string source_root = ResolveSourceRoot(options.source_root);
  nlohmann::json sarif = SummarySarif(findings, source_root);
  if (explored) AddExploreToSarif(sarif, *explored, options.command);
  WriteOutputFile(output.Claim("report.sarif"), sarif.dump(2) + "\n");
  // The page triage writes, for this one trace: findings with verdicts and clip pictures.
  SummaryTrace recorded;
  recorded.path = trace_path;
  recorded.status = "ok";
  recorded.events = trace.size_events();
  recorded.findings = findings.size();
  WriteOutputFile(
      output.Claim("report.html"),
      RenderSummaryHtml("pecan hunt", {recorded}, findings,
                        explored ? ExploreHtml(*explored, options.command) : "", source_root));

  std::cout << "\n";
  const SourceExcerpts sources(source_root);  // paths below --source-root shown relative to it
  if (hang) {
    std::cout << "OBSERVED in the recorded run: it did not end";
    if (hang->error.empty()) {
      std::cout << " (" << hang->verdict.failure << ")\n   " << hang->verdict.failure_message
                << "\n   reproduce: " << ReplayCommandLine(hang->clip_path, options.command)
                << "\n\n";
    } else {
      std::cout << "; " << hang->error << "\n\n";
    }
  }
  if (explored && !explored->failures.empty()) {
    std::cout << "EXPOSED by exploring schedules after the predictions:\n";
    size_t number = 0;
    for (const ExploreFailure& failure : explored->failures) {
      std::cout << ++number << ". " << failure.kind
                << (failure.site.empty() ? "" : " at " + failure.site) << "  [" << failure.chain
                << "]\n   " << failure.message
                << "\n   reproduce: " << ReplayCommandLine(failure.clip, options.command)
                << "\n   its clip failed the same way in " << failure.checks_failed << " of "
                << failure.checks << " replays\n";
    }
    std::cout << "\n";
  }
  if (confirmed == 0) {
    std::cout << "No confirmed findings: no prediction could be reproduced by replay.\n";
  } else {
    // One entry per bug; a bug with several confirmed variants lists them under its title.
    std::cout << "CONFIRMED by replay (" << confirmed << "):\n";
    size_t number = 0;
    for (const FindingGroup& group : groups) {
      std::vector<size_t> shown;
      for (size_t i : group.members)
        if (findings[i].verdict.confirmed()) shown.push_back(i);
      if (shown.empty()) continue;
      const std::string label = std::to_string(++number);
      if (shown.size() == 1) {
        PrintFinding(label, findings[shown.front()], options.command, sources);
        continue;
      }
      std::cout << label << ". " << group.title << ": " << shown.size()
                << " confirmed variants of one bug\n";
      for (size_t k = 0; k < shown.size(); k++)
        PrintFinding(label + "." + std::to_string(k + 1), findings[shown[k]], options.command,
                     sources);
    }
  }
  if (exposed > 0) {
    // Refuted as predicted, yet the replay, kept serialized to the end, made the program fail.
    std::cout << "\nFAILED in replay, though not as predicted (" << exposed << "):\n";
    size_t number = 0;
    for (const auto& f : findings)
      if (f.verdict.outcome == "exposed")
        PrintFinding(std::to_string(++number), f, options.command, sources);
  }
  std::cout << "\nRefuted by replay: " << Plural(refuted, "prediction")
            << " (the replay diverged from the recorded run, deadlocked or timed out)\n";
  std::cout << "No feasible clip: " << Plural(no_clip, "finding") << "\n";
  if (not_replayed > 0)
    std::cout << "Not replayed: " << Plural(not_replayed, "prediction")
              << " (the --budget was spent first; sound races go first)\n";
  for (const auto& f : findings)
    if (f.clip_path.empty() && !f.clip_error.empty())
      std::cout << "   " << f.pattern << " " << f.variant << ": " << f.clip_error << "\n";
  if (errors > 0) {
    std::cout << "Replay errors: " << errors << "\n";
    for (const auto& f : findings)
      if (!f.clip_path.empty() && f.verdict.outcome == "error")
        std::cout << "   " << f.id << ": " << f.verdict.reason << "\n";
  }
  if (explored) {
    for (const ExploreFailure& failure : explored->unreproduced)
      std::cout << "Not reproduced: a " << failure.strategy << " run failed (" << failure.kind
                << ") but its clip did not fail again in " << failure.checks
                << " replays, so it is not reported as exposed: "
                << ReplayCommandLine(failure.clip, options.command) << "\n";
    std::cout << "Explored after the predictions: ";
    bool first = true;
    for (const auto& [strategy, runs] : explored->runs) {
      std::cout << (first ? "" : ", ") << runs << " " << strategy << " runs";
      first = false;
    }
    if (explored->runs.empty()) std::cout << "no run";
    std::cout << " in " << std::fixed << std::setprecision(1) << explored->seconds << " s ("
              << explored->stopped << ")\n";
  }
  std::cout << "\nDetails: " << dir
            << "/verdicts.json (all verdicts), report.html, report.json, report.sarif, clips/, "
               "failures/\n";
  if (confirmed > 0 || exposed > 0 || record_timed_out || (explored && !explored->failures.empty()))
    return 1;
  return errors > 0 ? 2 : 0;
}

}  // namespace pecan::workflow
