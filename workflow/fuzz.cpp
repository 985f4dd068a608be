// `pecan fuzz`: controlled exploration. Each run is a replay of the program's first event whose
// continuation is a seeded strategy (random, PCT or RaceFuzzer): one thread at a time, the next
// chosen among those ready, so a run is a function of its seed, and a failing run leaves the
// clip of what it executed, which fails the same way on every replay.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "proto/clip.pb.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/event_kind.h"
#include "trace_format/output_file.h"
#include "trace_format/trace_reader.h"
#include "workflow/child_process.h"
#include "workflow/fuzz.h"
#include "workflow/fuzz_budget.h"
#include "workflow/fuzz_drfinder.h"
#include "workflow/fuzz_noise.h"
#include "workflow/fuzz_race_targets.h"
#include "workflow/fuzz_report.h"
#include "workflow/job_runner.h"
#include "workflow/library_runtime.h"
#include "workflow/output_directory.h"
#include "workflow/program_file.h"
#include "workflow/program_lookup.h"
#include "workflow/progress_warnings.h"
#include "workflow/replay_runner.h"

namespace pecan::workflow {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kFuzzFiles = {"fuzz.json",
                                             "fuzz.sarif",
                                             "start.clip",
                                             "failures/",
                                             "runs/",
                                             "traces/",
                                             "races/",
                                             "drfinder/",
                                             "first-run.pecan",
                                             "first-run.log",
                                             "atomic-sections.txt"};

// The clip every run starts from: the main thread's first event (THREAD_BEGIN at no site), of
// this very executable; everything after it is the strategy's.
proto::Clip StartClip(const std::string& program, const std::vector<std::string>& command) {
  const ProgramFile facts = InspectProgramFile(program);
  proto::Clip clip;
  clip.set_program(fs::canonical(program).string());
  for (size_t i = 1; i < command.size(); ++i) clip.add_args(command[i]);
  proto::Module* module = clip.add_modules();
  module->set_id(1);
  module->set_path(clip.program());
  module->set_build_id(facts.build_id);
  proto::ThreadInfo* main_thread = clip.add_threads();
  main_thread->set_id(0);
  main_thread->set_name("T0");
  proto::Site* site = clip.add_sites();
  site->set_id(0);
  site->set_module(0);
  site->set_offset(0);
  clip.add_run_thread(0);
  clip.add_run_length(1);
  clip.add_step_kind(static_cast<uint32_t>(EventKind::kThreadBegin));
  clip.add_step_site(0);
  clip.add_step_origin(0);
  clip.mutable_finding()->set_id("fuzz");
  clip.mutable_finding()->set_pattern("fuzz");
  clip.set_generator("fuzz start");
  clip.mutable_settings()->set_func_events(true);
  return clip;
}

SummaryVerdict RunOnce(const FuzzOptions& options, const std::string& strategy, uint64_t seed,
                       uint64_t steps, const std::string& start_clip, const std::string& log,
                       const std::string& failure_clip, const std::string& trace = "",
                       const std::vector<std::string>& extra = {}) {
  ReplayRunSettings settings;
  settings.timeout_seconds = options.timeout;
  settings.expect_exit = options.expect_exit;
  settings.extra_arguments = {"--strategy", strategy, "--seed", std::to_string(seed), "-q"};
  if (!trace.empty())
    settings.extra_arguments.insert(settings.extra_arguments.end(), {"--trace", trace});
  settings.extra_arguments.insert(settings.extra_arguments.end(), extra.begin(), extra.end());
  if (strategy == "pct") {
    settings.extra_arguments.insert(settings.extra_arguments.end(),
                                    {"--depth", std::to_string(options.depth), "--steps",
                                     std::to_string(std::max<uint64_t>(steps, 1))});
  }
  return ReplayClip(start_clip, options.command, settings, log, failure_clip);
}

// RaceFuzzer's and DrFinder's first phase: one recorded run (first-run.pecan), its path.
std::string RecordFirstRun(const FuzzOptions& options, OutputDirectory& output) {
  const std::string trace_path = output.Claim("first-run.pecan");
  {
    const std::string log = output.Claim("first-run.log");
    ChildSpec spec;
    spec.argv = {SelfExecutable(),
                 "record",
                 "-o",
                 trace_path,
                 "--expect-exit",
                 std::to_string(options.expect_exit),
                 "--timeout",
                 "60",
                 "--"};
    spec.argv.insert(spec.argv.end(), options.command.begin(), options.command.end());
    spec.stdout_path = log;
    spec.stderr_path = log;
    RunChild(spec);
    if (!fs::exists(trace_path)) {
      const std::string why = LastPecanError(log);
      throw PecanError("fuzz: cannot record a first run of " + options.command.front() + ": " +
                       (why.empty() ? "no trace (see " + log + ")" : why));
    }
  }
  return trace_path;
}

// RaceFuzzer's first phase: the racing pairs of --races REPORT, or of the race analysis of one
// recorded run (first-run.pecan). Writes each pair's start clip to races/ID.start.clip.
std::vector<RaceTarget> PrepareRaceTargets(const FuzzOptions& options, const proto::Clip& start,
                                           OutputDirectory& output,
                                           std::vector<std::string>* clips) {
  std::string trace_path;
  std::vector<Finding> races;
  if (!options.races.empty()) {
    races = RaceFindingsOfReport(options.races, &trace_path);
  } else {
    trace_path = RecordFirstRun(options, output);
  }
  const Trace trace = ReadTrace(trace_path);
  if (options.races.empty()) {
    AnalysisOptions analysis;
    analysis.patterns = "race";
    races = Analyze(trace, analysis).findings;
  }
  std::vector<RaceTarget> targets = RaceTargetsOf(trace, races);
  if (!options.race.empty()) {
    std::erase_if(targets, [&](const RaceTarget& t) { return t.id != options.race; });
    if (targets.empty())
      throw PecanError("fuzz: --race " + options.race + ": no race finding has that id (see " +
                       (options.races.empty() ? trace_path : options.races) + ")");
  }
  for (const RaceTarget& target : targets) {
    clips->push_back(output.Claim("races/" + target.id + ".start.clip"));
    WriteClipFile(clips->back(), RaceStartClip(start, trace, target));
  }
  std::cout << "pecan fuzz: " << targets.size() << " racing pair"
            << (targets.size() == 1 ? "" : "s") << " of statements to target"
            << (options.races.empty() ? " (from a first recorded run, " + trace_path + ")"
                                      : " (from " + options.races + ")")
            << "\n";
  return targets;
}

// The noise strategy's runs: free-running and recorded, `--jobs` at a time; the focused
// heuristics take their variables from a first recorded run.
void RunNoise(const FuzzOptions& options, OutputDirectory& output, std::vector<FuzzRun>& runs,
              ProgressWithWarnings& progress, size_t& done, FuzzBudget& budget) {
  std::vector<NoiseTarget> targets;
  if (options.heuristic != "random") {
    targets = NoiseTargetsOf(ReadTrace(RecordFirstRun(options, output)));
    std::cout << "pecan fuzz: " << targets.size() << " shared variable"
              << (targets.size() == 1 ? "" : "s")
              << " to focus the noise on, from a first recorded run (first-run.pecan)\n";
  }
  NoiseSettings settings;
  settings.heuristic = options.heuristic;
  settings.frequency = options.frequency.value_or(0);
  settings.strength = options.strength.value_or(settings.strength);
  settings.focus = options.focus.value_or(0);
  settings.timeout = options.timeout;
  settings.expect_exit = options.expect_exit;
  settings.command = options.command;
  if (!options.atomic.empty()) {
    settings.atomic_sections = output.Claim("atomic-sections.txt");
    const size_t sections =
        WriteAtomicSections(options.atomic, options.command.front(), settings.atomic_sections);
    std::cout << "pecan fuzz: " << sections << " atomic section" << (sections == 1 ? "" : "s")
              << " from " << options.atomic << "\n";
  }
  RunJobs(
      runs.size(), options.jobs,
      [&](size_t n) {
        const uint64_t seed = options.seed + n;
        if (budget.Exhausted()) {
          runs[n].seed = seed;
          runs[n].skipped = true;
          return;
        }
        const std::string name = "run-" + std::to_string(seed);
        const std::string trace = output.Claim("traces/" + name + ".pecan");
        const std::string report = output.Claim("runs/" + name + ".noise");
        const std::string focus = output.Claim("runs/" + name + ".focus");
        const std::string log = output.Claim("runs/" + name + ".log");
        const std::string replay_log = output.Claim("runs/" + name + ".replay.log");
        FuzzRun& run = runs[n];
        run = RunNoiseOnce(settings, targets, seed, n, trace, report, focus, log,
                           output.Claim("failures/" + name + ".clip"), replay_log);
        fs::remove(report);
        fs::remove(focus);
        if (!run.failed() && !run.error()) {
          fs::remove(log);
          fs::remove(replay_log);
        }
        if (run.failed()) budget.NoteFailure();
        if (options.keep_traces && fs::exists(trace)) {
          run.trace = trace;
        } else {
          fs::remove(trace);
        }
      },
      [&](size_t) { progress.Update(++done); });
}

}  // namespace

int RunFuzz(FuzzOptions options) {
  if (!options.command.empty() && options.command.front() == "--")
    options.command.erase(options.command.begin());
  if (options.command.empty())
    throw PecanError("fuzz: no program given (pecan fuzz -- PROGRAM [ARGS...])");
  const std::string program = RequireExecutable(options.command.front(), "fuzz: ");
  if (const ProgramFile facts = InspectProgramFile(program);
      facts.is_elf && !facts.loads_runtime && !RuntimePreloaded() &&
      LibraryRuntime(program, facts).empty()) {
    throw PecanError("fuzz: " + options.command.front() + " does not load " + kRuntimeLibrary +
                     ": build it with pecan-cc / pecan-c++ or pecan_instrument()");
  }
  if (options.strategy != "racefuzzer" && (!options.races.empty() || !options.race.empty()))
    throw PecanError("fuzz: --races and --race are for --strategy racefuzzer");
  if (options.strategy != "noise" && (options.heuristic != "random" || options.frequency ||
                                      options.strength || options.focus || !options.atomic.empty()))
    throw PecanError(
        "fuzz: --heuristic, --frequency, --strength, --focus and --atomic are for --strategy "
        "noise");
  OutputDirectory output(options.output, "fuzz", kFuzzFiles);
  const std::string start_clip = output.Claim("start.clip");
  WriteClipFile(start_clip, StartClip(program, options.command));

  // RaceFuzzer: runs cycle through the racing pairs, each from a start clip that names its pair.
  std::vector<RaceTarget> targets;
  std::vector<std::string> target_clips;
  if (options.strategy == "racefuzzer") {
    targets = PrepareRaceTargets(options, ReadClipFile(start_clip), output, &target_clips);
    if (targets.empty()) {
      std::cout << "pecan fuzz: no racing pair of statements to target: nothing to run\n";
      options.runs = 0;
    }
  }

  // PCT draws its change points over the run's length k: one random run of seed 0 measures it,
  // whatever --seed is, so `--seed S --runs 1` repeats run S of any earlier fuzz.
  uint64_t steps = options.steps;
  if (options.strategy == "pct" && steps == 0) {
    const SummaryVerdict probe =
        RunOnce(options, "random", 0, 0, start_clip, output.Claim("runs/length-probe.log"),
                output.Claim("failures/length-probe.clip"));
    if (probe.outcome == "error")
      throw PecanError("fuzz: the program cannot run under pecan's scheduler: " + probe.reason);
    steps = std::max<uint64_t>(probe.events, 1);
    std::cout << "pecan fuzz: runs are about " << steps << " events long (PCT's k)\n";
  }

  std::vector<FuzzRun> runs(options.runs);
  FuzzBudget budget(options.budget, options.until_failure);
  if (!runs.empty()) {
    ProgressWithWarnings progress(
        "pecan fuzz: " + std::to_string(options.runs) + " " + options.strategy + " runs",
        options.runs);
    size_t done = 0;
    // DrFinder: each run is scheduled by the may-trigger relations of the run before it (the
    // first recorded run's for the first), so runs go one after the other; each is recorded,
    // and its trace gives the races it observed and the relations for the next.
    std::optional<MayTriggerRelations> relations;
    std::optional<Trace> first_trace;
    if (options.strategy == "drfinder") {
      first_trace = ReadTrace(RecordFirstRun(options, output));
      Symbolizer symbolizer(*first_trace);
      relations = CollectMayTrigger(*first_trace, symbolizer, options.depth);
      std::cout << "pecan fuzz: " << relations->size()
                << " may-trigger relations from a first recorded run (first-run.pecan)\n";
    }
    if (options.strategy == "noise") {
      RunNoise(options, output, runs, progress, done, budget);
    } else {
      const proto::Clip start = ReadClipFile(start_clip);
      RunJobs(
          options.runs, relations ? 1 : options.jobs,
          [&](size_t n) {
            FuzzRun& run = runs[n];
            run.seed = options.seed + n;
            if (budget.Exhausted()) {
              run.skipped = true;
              return;
            }
            const std::string name = "run-" + std::to_string(run.seed);
            const std::string log = output.Claim("runs/" + name + ".log");
            if (options.keep_traces || relations)
              run.trace = output.Claim("traces/" + name + ".pecan");
            std::string clip = start_clip;
            std::vector<std::string> extra;
            if (relations) {
              clip = output.Claim("drfinder/" + name + ".clip");
              const std::string input = output.Claim("drfinder/" + name + ".may-trigger");
              WriteClipFile(clip, WriteMayTriggerInput(*relations, *first_trace, start,
                                                       options.depth, input));
              extra = {"--may-trigger", input};
            }
            if (!targets.empty()) {
              run.race_target = targets[n % targets.size()].id;
              clip = target_clips[n % targets.size()];
            }
            run.verdict = RunOnce(options, options.strategy, run.seed, steps, clip, log,
                                  output.Claim("failures/" + name + ".clip"), run.trace, extra);
            if (relations && fs::exists(run.trace)) {
              try {
                const Trace trace = ReadTrace(run.trace);
                const std::vector<HappensBeforeRace> observed = FindHappensBeforeRaces(trace);
                run.verdict.races = ObservedRacesJson(trace, observed);
                run.verdict.races_total = observed.size();
                run.drfinder = true;
                Symbolizer symbolizer(trace);
                MayTriggerRelations next = CollectMayTrigger(trace, symbolizer, options.depth);
                if (next.size() > 0) *relations = std::move(next);  // MTR': feedback
              } catch (const std::bad_alloc&) {
                throw;  // out of memory, not an unreadable trace (cli/main.cpp says so)
              } catch (const std::exception& error) {
                std::cerr << "pecan fuzz: run " << run.seed << ": its trace cannot be read ("
                          << error.what() << "): no races observed\n";
              }
              if (!options.keep_traces) fs::remove(run.trace);
            }
            if (run.failed()) budget.NoteFailure();
            // A passing run's output is not worth keeping.
            if (!run.failed() && !run.error()) fs::remove(log);
            if (!run.trace.empty() && !fs::exists(run.trace)) run.trace.clear();
          },
          [&](size_t) { progress.Update(++done); });
    }
  }

  std::erase_if(runs, [](const FuzzRun& run) { return run.skipped; });
  if (runs.size() < options.runs)
    std::cout << "pecan fuzz: " << runs.size() << " of " << options.runs << " runs made ("
              << (options.until_failure && CountFuzzRuns(runs).failed > 0
                      ? "--until-failure: a run failed"
                      : "--budget of " + std::to_string(static_cast<long>(options.budget)) +
                            " s spent")
              << ")\n";
  const std::vector<FuzzFailure> failures = DistinctFuzzFailures(runs);
  nlohmann::json settings{{"strategy", options.strategy},
                          {"seed", options.seed},
                          {"timeout", options.timeout},
                          {"expect_exit", options.expect_exit}};
  if (options.strategy == "pct") {
    settings["depth"] = options.depth;
    settings["steps"] = steps;
  }
  if (options.strategy == "racefuzzer") settings["races"] = RaceTargetsJson(targets, runs);
  if (options.strategy == "noise") {
    settings["heuristic"] = options.heuristic;
    settings["frequency"] = options.frequency.value_or(DefaultNoiseFrequency(options.heuristic));
    settings["strength"] = options.strength.value_or(NoiseSettings{}.strength);
    if (options.heuristic != "random")
      settings["focus"] = options.focus.value_or(DefaultNoiseFocus(options.heuristic));
  }
  const nlohmann::json summary = FuzzJson(std::move(settings), runs, failures, options.command);
  WriteOutputFile(output.Claim("fuzz.json"),
                  summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  WriteOutputFile(
      output.Claim("fuzz.sarif"),
      FuzzSarif(failures, runs.size(), options.command, ResolveSourceRoot(options.source_root))
              .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
          "\n");
  PrintFuzzSummary(std::cout, options.strategy, runs, failures, options.command, options.output);
  if (!targets.empty()) PrintRaceTargets(std::cout, targets, runs);
  if (options.strategy == "noise") PrintNoiseFindings(std::cout, runs);
  if (!failures.empty()) return 1;
  return CountFuzzRuns(runs).errors > 0 ? 2 : 0;
}

}  // namespace pecan::workflow
