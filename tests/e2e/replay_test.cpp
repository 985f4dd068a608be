// `pecan replay` on real programs through the real binary: bug clips hatch (and fail the
// program) the same way every time, false predictions and impossible clips end infeasible
// within their bounds, recorded runs of busy correct programs replay to completion, bad input
// is a one-line error with exit status 2, and --gdb stops where the anomaly forms.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"
#include "proto/clip.pb.h"
#include "trace_format/clip_file.h"
#include "trace_format/event_kind.h"

namespace {

int ExitStatus(const e2e::PecanRun& run) {
  return e2e::ExitStatus(run.result);
}

struct Replay {
  int exit_status = -1;
  nlohmann::json verdict;  // the --json object (null if there was none)
  std::string output;
  double seconds = 0;
};

// `pecan replay --json [extra...] CLIP -- PROGRAM [program_args...]`: the verdict object is the
// last line.
Replay RunReplay(const std::string& clip, const std::string& program, const std::string& log,
                 const std::vector<std::string>& extra = {},
                 const std::vector<std::string>& program_args = {}) {
  std::vector<std::string> arguments = {"replay", "--json"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  arguments.insert(arguments.end(), {clip, "--", program});
  arguments.insert(arguments.end(), program_args.begin(), program_args.end());
  const auto start = std::chrono::steady_clock::now();
  e2e::PecanRun run = e2e::RunPecan(arguments, log, 120);
  Replay replay;
  replay.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  replay.exit_status = ExitStatus(run);
  replay.output = run.output;
  // The verdict is the last line that starts with '{' (the program's own output comes first;
  // on errors pecan's one-line message on stderr may follow).
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind('{', 0) != 0) continue;
    replay.verdict = nlohmann::json::parse(line, nullptr, false);
    if (replay.verdict.is_discarded()) replay.verdict = nullptr;
  }
  return replay;
}

// Records `program` and writes the clip of its whole recorded run; returns the clip's path.
std::string RecordedRunClip(const std::string& program, const std::string& dir,
                            const std::vector<std::string>& program_args = {}) {
  const std::string trace = dir + "/trace.pecan";
  std::vector<std::string> arguments = {"record", "-q", "-o", trace, "--", program};
  arguments.insert(arguments.end(), program_args.begin(), program_args.end());
  e2e::PecanRun record = e2e::RunPecan(arguments, dir + "/record.log");
  INFO(record.output);
  REQUIRE(ExitStatus(record) == 0);
  e2e::PecanRun clips =
      e2e::RunPecan({"clips", trace, "--recorded", "-o", dir + "/clips"}, dir + "/clips.log");
  INFO(clips.output);
  REQUIRE(ExitStatus(clips) == 0);
  return dir + "/clips/recorded.clip";
}

// The line of `output` that starts with `prefix` ("" if none).
std::string LineStartingWith(const std::string& output, const std::string& prefix) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

// The clip's steps one by one (thread, kind, site, origin), to edit a schedule by hand.
struct Step {
  uint32_t thread;
  uint32_t kind;
  uint32_t site;
  uint64_t origin;
};

std::vector<Step> StepsOf(const pecan::proto::Clip& clip) {
  std::vector<Step> steps;
  int index = 0;
  for (int run = 0; run < clip.run_thread_size(); ++run) {
    for (uint32_t i = 0; i < clip.run_length(run); ++i, ++index) {
      steps.push_back({clip.run_thread(run), clip.step_kind(index), clip.step_site(index),
                       clip.step_origin_size() > index ? clip.step_origin(index) : 0});
    }
  }
  return steps;
}

void SetSteps(pecan::proto::Clip& clip, const std::vector<Step>& steps) {
  clip.clear_run_thread();
  clip.clear_run_length();
  clip.clear_step_kind();
  clip.clear_step_site();
  clip.clear_step_origin();
  clip.clear_moved_steps();
  for (const Step& step : steps) {
    if (clip.run_thread_size() == 0 || clip.run_thread(clip.run_thread_size() - 1) != step.thread) {
      clip.add_run_thread(step.thread);
      clip.add_run_length(0);
    }
    clip.set_run_length(clip.run_length_size() - 1,
                        clip.run_length(clip.run_length_size() - 1) + 1);
    clip.add_step_kind(step.kind);
    clip.add_step_site(step.site);
    clip.add_step_origin(step.origin);
  }
}

size_t FindStep(const std::vector<Step>& steps, uint32_t thread, pecan::EventKind kind) {
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].thread == thread && steps[i].kind == static_cast<uint32_t>(kind)) return i;
  FAIL("no step of T" << thread << " with kind " << pecan::EventKindName(kind));
  return 0;
}

// `pecan hunt` on an example; returns the verdicts.json findings.
nlohmann::json Hunt(const std::string& example, const std::string& dir) {
  nlohmann::json expected = e2e::Expectations()["programs"][example];
  std::vector<std::string> arguments = {"hunt", "-o", dir + "/out", "--jobs", "2"};
  for (const auto& argument : expected["hunt_args"])
    arguments.push_back(argument.get<std::string>());
  arguments.push_back("--");
  arguments.push_back(e2e::ExampleBinary(example));
  e2e::PecanRun run = e2e::RunPecan(arguments, dir + "/hunt.log");
  INFO(run.output);
  REQUIRE(std::filesystem::exists(dir + "/out/verdicts.json"));
  return e2e::ReadJson(dir + "/out/verdicts.json")["findings"];
}

const nlohmann::json* FindingWithLines(const nlohmann::json& findings, const std::string& pattern,
                                       std::multiset<int> lines) {
  for (const auto& finding : findings)
    if (finding["pattern"] == pattern && e2e::FindingLines(finding) == lines) return &finding;
  return nullptr;
}

}  // namespace

TEST_CASE("bug clips hatch and fail the program the same way in 20 replays", "[e2e][replay]") {
  struct Case {
    std::string example;
    std::string pattern;
    std::multiset<int> lines;
  };
  // PECAN Figure 1's ERROR (a race), the Jigsaw check-then-act (an atomicity violation) and a
  // two-field invariant broken between reads (an atomic-set serializability violation).
  const std::vector<Case> cases = {
      {"pecan_figure1", "race", {28, 39}},
      {"jigsaw_event_queue", "atomicity", {35, 52, 42}},
      {"account_invariant", "asv", {32, 48, 49, 37}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.example) {
      const std::string dir = e2e::FreshDirectory("replay-repeat-" + c.example);
      // The program's own run never fails.
      e2e::PecanRun normal = e2e::RunPecan(
          {"record", "-q", "-o", dir + "/normal.pecan", "--", e2e::ExampleBinary(c.example)},
          dir + "/normal.log");
      REQUIRE(ExitStatus(normal) == 0);

      nlohmann::json findings = Hunt(c.example, dir);
      const nlohmann::json* finding = FindingWithLines(findings, c.pattern, c.lines);
      REQUIRE(finding != nullptr);
      const std::string clip = (*finding)["clip"]["path"];
      for (int i = 0; i < 20; ++i) {
        Replay replay = RunReplay(clip, e2e::ExampleBinary(c.example), dir + "/replay.log");
        INFO("replay " << i << ":\n" << replay.output);
        REQUIRE(replay.verdict.is_object());
        CHECK(replay.exit_status == 0);
        CHECK(replay.verdict["verdict"] == "hatched");
        CHECK(replay.verdict["failure"] == "assertion");
        CHECK(replay.verdict["steps_executed"] == replay.verdict["steps_total"]);
        CHECK(replay.verdict["anomaly"].size() == c.lines.size());
        CHECK(replay.verdict["exit_status"].is_null());  // died of SIGABRT
        if (c.pattern == "race") {
          // Listed as the replay ran them: the write of y (39) overtook the read (28).
          CHECK(replay.verdict["race_reversed"] == true);
          CHECK_THAT(replay.verdict["anomaly"][0]["site"].get<std::string>(),
                     Catch::Contains("pecan_figure1.c:39"));
          CHECK_THAT(replay.verdict["anomaly"][1]["site"].get<std::string>(),
                     Catch::Contains("pecan_figure1.c:28"));
          // The runtime's reason names them the same way, not by module and offset.
          CHECK_THAT(replay.verdict["reason"].get<std::string>(),
                     Catch::Contains("write at pecan_figure1.c:39") &&
                         Catch::Contains("read at pecan_figure1.c:28") &&
                         !Catch::Contains("pecan_figure1+0x"));
        }
      }
    }
  }
}

TEST_CASE("a race predicted across ad-hoc flag synchronization is refuted by divergence",
          "[e2e][replay]") {
  const std::string dir = e2e::FreshDirectory("replay-flag-sync");
  const std::string program = e2e::TestProgram("flag_sync");
  const std::string trace = dir + "/trace.pecan";
  REQUIRE(ExitStatus(e2e::RunPecan({"record", "-q", "-o", trace, "--", program}, dir + "/r.log")) ==
          0);
  REQUIRE(ExitStatus(e2e::RunPecan({"analyze", trace, "-f", "json", "-o", dir + "/report.json"},
                                   dir + "/a.log")) == 0);
  e2e::PecanRun clips = e2e::RunPecan(
      {"clips", trace, "--report", dir + "/report.json", "-o", dir + "/clips"}, dir + "/c.log");
  REQUIRE(ExitStatus(clips) == 0);

  // The race on `data` (write line 14, read line 24) is what the flag prevents.
  nlohmann::json report = e2e::ReadJson(dir + "/report.json");
  std::string data_race;
  for (const auto& finding : report["findings"]) {
    std::multiset<int> lines;
    for (const auto& event : finding["events"]) lines.insert(event["site"].value("line", 0));
    if (finding["pattern"] == "race" && lines == std::multiset<int>{14, 24})
      data_race = finding["id"];
  }
  INFO(e2e::ReadText(dir + "/report.json"));
  REQUIRE_FALSE(data_race.empty());
  Replay replay = RunReplay(dir + "/clips/" + data_race + ".clip", program, dir + "/replay.log");
  INFO(replay.output);
  CHECK(replay.exit_status == 3);
  REQUIRE(replay.verdict.is_object());
  CHECK(replay.verdict["verdict"] == "infeasible");
  CHECK_THAT(replay.verdict["reason"].get<std::string>(), Catch::StartsWith("divergence"));
  // The run went on after the divergence, serialized, and the program ended normally: refuted.
  CHECK_THAT(replay.verdict["reason"].get<std::string>(),
             Catch::Contains("then the program ended normally"));
  CHECK_THAT(replay.verdict["divergence"].get<std::string>(), Catch::Contains(" diverged "));
  CHECK(replay.verdict["exit_status"] == 0);
  CHECK(replay.verdict["failure"].is_null());
  CHECK(replay.verdict["failure_clip"].is_null());
  CHECK(replay.verdict["timed_out"] == false);
}

TEST_CASE("a replay's reason and divergence name their places by file:line (function)",
          "[e2e][replay][reason]") {
  SECTION("the anomaly of a hatched race") {
    const std::string dir = e2e::FreshDirectory("replay-reason-lost-update");
    const std::string program = e2e::ExampleBinary("lost_update");
    const std::string clip = e2e::RaceClip(program, dir, {23, 24});
    Replay replay = RunReplay(clip, program, dir + "/replay.log");
    INFO(replay.output);
    REQUIRE(replay.verdict.is_object());
    CHECK(replay.verdict["verdict"] == "hatched");
    const std::string reason = replay.verdict["reason"];
    CHECK_THAT(reason, Catch::StartsWith("the anomaly formed at step "));
    CHECK_THAT(reason, Catch::Contains("read at lost_update.c:23 (add_batch)"));
    CHECK_THAT(reason, Catch::Contains("write at lost_update.c:24 (add_batch)"));
    CHECK_THAT(reason, !Catch::Contains("lost_update+0x"));
  }
  SECTION("a divergence, in the JSON object and in the line alike") {
    const std::string dir = e2e::FreshDirectory("replay-reason-flag-sync");
    const std::string program = e2e::TestProgram("flag_sync");
    const std::string clip = e2e::RaceClip(program, dir, {14, 24});
    Replay replay = RunReplay(clip, program, dir + "/replay.log");
    INFO(replay.output);
    REQUIRE(replay.verdict.is_object());
    CHECK(replay.verdict["verdict"] == "infeasible");
    const std::string divergence = replay.verdict["divergence"];
    CHECK_THAT(divergence, Catch::Contains(" diverged ") && Catch::Contains("flag_sync.c:"));
    CHECK_THAT(divergence, !Catch::Contains("flag_sync+0x"));
    const std::string reason = replay.verdict["reason"];
    CHECK_THAT(reason, Catch::StartsWith("divergence: " + divergence));

    e2e::PecanRun line =
        e2e::RunPecan({"replay", clip, "--", program}, dir + "/replay-line.log", 120);
    INFO(line.output);
    CHECK_THAT(LineStartingWith(line.output, "pecan: infeasible: "),
               Catch::Contains(" -- " + reason + " ("));
  }
}

TEST_CASE("a race after a loop of repeated accesses hatches: the replay runs the counted repeats",
          "[e2e][replay][repeats]") {
  const std::string dir = e2e::FreshDirectory("replay-loop-then-race");
  const std::string program = e2e::TestProgram("loop_then_race");
  const std::string trace = dir + "/trace.pecan";
  REQUIRE(ExitStatus(e2e::RunPecan({"record", "-q", "-o", trace, "--", program}, dir + "/r.log")) ==
          0);
  // The worker's loop was counted, not recorded.
  e2e::PecanRun stats = e2e::RunPecan({"stats", trace}, dir + "/stats.log");
  INFO(stats.output);
  CHECK_THAT(stats.output, Catch::Contains("(and 3996 repeated accesses counted, not recorded"));
  REQUIRE(ExitStatus(e2e::RunPecan({"analyze", trace, "-f", "json", "-o", dir + "/report.json"},
                                   dir + "/a.log")) == 0);
  REQUIRE(ExitStatus(e2e::RunPecan(
              {"clips", trace, "--report", dir + "/report.json", "-o", dir + "/clips"},
              dir + "/c.log")) == 0);
  std::string race;
  const nlohmann::json report = e2e::ReadJson(dir + "/report.json");
  for (const auto& finding : report["findings"]) {
    std::multiset<int> lines;
    for (const auto& event : finding["events"]) lines.insert(event["site"].value("line", 0));
    if (finding["pattern"] == "race" && lines == std::multiset<int>{18, 27}) race = finding["id"];
  }
  INFO(e2e::ReadText(dir + "/report.json"));
  REQUIRE_FALSE(race.empty());
  for (int repetition = 0; repetition < 5; ++repetition) {
    Replay replay = RunReplay(dir + "/clips/" + race + ".clip", program, dir + "/replay.log");
    INFO(replay.output);
    CHECK(replay.exit_status == 0);
    REQUIRE(replay.verdict.is_object());
    CHECK(replay.verdict["verdict"] == "hatched");
    CHECK(replay.verdict["failure"] == "assertion");
  }
  // And the recorded run replays to its end, repeats included.
  const std::string recorded_dir = e2e::FreshDirectory("replay-loop-then-race-recorded");
  Replay recorded =
      RunReplay(RecordedRunClip(program, recorded_dir), program, recorded_dir + "/replay.log");
  INFO(recorded.output);
  CHECK(recorded.exit_status == 0);
  CHECK(recorded.verdict["steps_executed"] == recorded.verdict["steps_total"]);
}

TEST_CASE("a hand-corrupted clip ends infeasible within its time bound", "[e2e][replay]") {
  const std::string dir = e2e::FreshDirectory("replay-corrupted");
  const std::string program = e2e::TestProgram("lock_order");
  const std::string clip_path = RecordedRunClip(program, dir);

  pecan::proto::Clip clip = pecan::ReadClipFile(clip_path);
  std::vector<Step> steps = StepsOf(clip);
  // The second worker's write of `total` becomes a read: the run cannot follow that step.
  size_t write = FindStep(steps, 2, pecan::EventKind::kLock);
  while (steps[write].thread != 2 ||
         steps[write].kind != static_cast<uint32_t>(pecan::EventKind::kWrite))
    ++write;
  steps[write].kind = static_cast<uint32_t>(pecan::EventKind::kRead);
  SetSteps(clip, steps);
  const std::string corrupted = dir + "/corrupted.clip";
  pecan::WriteClipFile(corrupted, clip);

  Replay replay = RunReplay(corrupted, program, dir + "/replay.log", {"--timeout", "10"});
  INFO(replay.output);
  CHECK(replay.exit_status == 3);
  REQUIRE(replay.verdict.is_object());
  CHECK(replay.verdict["verdict"] == "infeasible");
  CHECK_THAT(replay.verdict["reason"].get<std::string>(), Catch::Contains("expected read"));
  CHECK(replay.verdict["steps_executed"].get<int>() == static_cast<int>(write));
  CHECK(replay.seconds < 10);
}

TEST_CASE("a clip demanding an impossible lock order ends infeasible by deadlock detection",
          "[e2e][replay]") {
  const std::string dir = e2e::FreshDirectory("replay-lock-order");
  const std::string program = e2e::TestProgram("lock_order");
  const std::string clip_path = RecordedRunClip(program, dir);

  pecan::proto::Clip clip = pecan::ReadClipFile(clip_path);
  std::vector<Step> steps = StepsOf(clip);
  // X took the lock first, Y after X released it. Move every step of the other threads up to
  // Y's lock in front of X's steps after its lock (its release among them): Y must then take
  // the lock while X holds it.
  size_t x = 0;
  while (steps[x].kind != static_cast<uint32_t>(pecan::EventKind::kLock)) ++x;
  const uint32_t x_thread = steps[x].thread;
  REQUIRE((x_thread == 1 || x_thread == 2));
  const size_t y = FindStep(steps, 3 - x_thread, pecan::EventKind::kLock);
  REQUIRE(y > x);
  std::vector<Step> reordered(steps.begin(), steps.begin() + x + 1);
  std::vector<Step> held_back;
  for (size_t i = x + 1; i <= y; ++i)
    (steps[i].thread == x_thread ? held_back : reordered).push_back(steps[i]);
  reordered.insert(reordered.end(), held_back.begin(), held_back.end());
  reordered.insert(reordered.end(), steps.begin() + y + 1, steps.end());
  SetSteps(clip, reordered);
  const std::string impossible = dir + "/impossible.clip";
  pecan::WriteClipFile(impossible, clip);

  Replay replay = RunReplay(impossible, program, dir + "/replay.log", {"--timeout", "20"});
  INFO(replay.output);
  CHECK(replay.exit_status == 3);
  REQUIRE(replay.verdict.is_object());
  CHECK(replay.verdict["verdict"] == "infeasible");
  CHECK_THAT(replay.verdict["reason"].get<std::string>(), Catch::StartsWith("deadlock: "));
  CHECK_THAT(replay.verdict["reason"].get<std::string>(), !Catch::StartsWith("deadlock: deadlock"));
  CHECK(replay.verdict["exit_status"].is_null());
  CHECK(replay.verdict["timed_out"] == false);
  CHECK(replay.seconds < 20);
}

TEST_CASE("busy correct programs replay their recorded run to completion, every time",
          "[e2e][replay]") {
  // sync_mix: barriers, condition variables, atomics, shared and recursive mutexes, 13 threads;
  // the examples' correct programs: condition variables, fork/join, release/acquire.
  for (const std::string name :
       {"sync_mix", "correct_condvar", "correct_fork_join", "correct_publication"}) {
    const std::string dir = e2e::FreshDirectory("replay-recorded-" + name);
    const std::string program =
        name == "sync_mix" ? e2e::TestProgram(name) : e2e::ExampleBinary(name);
    const std::string clip = RecordedRunClip(program, dir);
    for (int i = 0; i < 10; ++i) {
      Replay replay = RunReplay(clip, program, dir + "/replay.log");
      INFO("replay " << i << ":\n" << replay.output);
      CHECK(replay.exit_status == 0);
      REQUIRE(replay.verdict.is_object());
      CHECK(replay.verdict["verdict"] == "followed");
      CHECK(replay.verdict["failure"].is_null());
      CHECK(replay.verdict["exit_status"] == 0);
      CHECK(replay.verdict["steps_executed"] == replay.verdict["steps_total"]);
      if (name == "sync_mix") CHECK_THAT(replay.output, Catch::Contains("sync_mix ok"));
    }
    // The verdict line says the same word as the JSON.
    e2e::PecanRun text = e2e::RunPecan({"replay", clip, "--", program}, dir + "/text.log");
    INFO(text.output);
    CHECK(ExitStatus(text) == 0);
    CHECK_THAT(LineStartingWith(text.output, "pecan: "),
               Catch::StartsWith("pecan: followed: recorded run [recorded]"));
  }
}

TEST_CASE("pecan replay: bad input is exit status 2 with a one-line message", "[e2e][replay]") {
  const std::string dir = e2e::FreshDirectory("replay-bad-input");
  const std::string clip = RecordedRunClip(e2e::TestProgram("lock_order"), dir);
  auto one_line_error = [](const e2e::PecanRun& run) {
    CHECK(ExitStatus(run) == 2);
    CHECK_THAT(run.output, Catch::StartsWith("pecan: error: "));
    CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
  };
  SECTION("missing clip") {
    e2e::PecanRun run =
        e2e::RunPecan({"replay", dir + "/nothing.clip", "--", e2e::TestProgram("lock_order")},
                      dir + "/missing.log");
    INFO(run.output);
    CHECK(ExitStatus(run) == 2);
  }
  SECTION("a clip recorded from another program") {
    e2e::PecanRun run =
        e2e::RunPecan({"replay", clip, "--", e2e::TestProgram("flag_sync")}, dir + "/other.log");
    INFO(run.output);
    one_line_error(run);
    CHECK_THAT(run.output, Catch::Contains("another build"));
  }
  SECTION("a damaged clip file") {
    std::string bytes = e2e::ReadText(clip);
    bytes[bytes.size() / 2] ^= 0x5a;
    std::ofstream(dir + "/damaged.clip", std::ios::binary) << bytes;
    e2e::PecanRun run =
        e2e::RunPecan({"replay", dir + "/damaged.clip", "--", e2e::TestProgram("lock_order")},
                      dir + "/damaged.log");
    INFO(run.output);
    one_line_error(run);
    CHECK_THAT(run.output, Catch::Contains("damaged.clip"));
  }
  SECTION("a failure clip that cannot be written, before the program runs") {
    e2e::PecanRun run = e2e::RunPecan({"replay", "--failure-clip", dir + "/no/such/dir/f.clip",
                                       clip, "--", e2e::TestProgram("lock_order")},
                                      dir + "/unwritable.log");
    INFO(run.output);
    one_line_error(run);
    CHECK_THAT(run.output, Catch::Contains("cannot write the failure clip"));
    CHECK_THAT(run.output, !Catch::Contains("total "));  // the program did not run
  }
  SECTION("a program that was not built with pecan") {
    e2e::PecanRun run = e2e::RunPecan({"replay", clip, "--", "/bin/true"}, dir + "/true.log");
    INFO(run.output);
    one_line_error(run);
    CHECK_THAT(run.output, Catch::Contains("pecan-cc"));
  }
  SECTION("a clip made from an imported STD trace") {
    std::ofstream(dir + "/imported.std") << "T0|fork(T1)|1\n"
                                            "T0|w(x)|2\n"
                                            "T1|r(x)|3\n"
                                            "T0|join(T1)|4\n";
    e2e::PecanRun clips = e2e::RunPecan(
        {"clips", dir + "/imported.std", "--recorded", "-o", dir + "/std-clips"}, dir + "/c.log");
    REQUIRE(ExitStatus(clips) == 0);
    const std::string std_clip = dir + "/std-clips/recorded.clip";
    e2e::PecanRun run =
        e2e::RunPecan({"replay", std_clip, "--", e2e::TestProgram("lock_order")}, dir + "/std.log");
    INFO(run.output);
    one_line_error(run);
    CHECK_THAT(run.output, Catch::Contains("made from an imported STD trace; only clips of "
                                           "recorded runs can be replayed"));
    Replay json = RunReplay(std_clip, e2e::TestProgram("lock_order"), dir + "/std-json.log");
    INFO(json.output);
    CHECK(json.exit_status == 2);
    REQUIRE(json.verdict.is_object());
    CHECK(json.verdict["verdict"] == "error");
    CHECK_THAT(json.verdict["reason"].get<std::string>(),
               Catch::Contains("made from an imported STD trace"));
  }
  SECTION("--json prints an error object for every exit-2 error") {
    Replay missing =
        RunReplay(dir + "/nothing.clip", e2e::TestProgram("lock_order"), dir + "/missing-json.log");
    INFO(missing.output);
    CHECK(missing.exit_status == 2);
    REQUIRE(missing.verdict.is_object());
    CHECK(missing.verdict["verdict"] == "error");
    CHECK_THAT(missing.verdict["reason"].get<std::string>(), Catch::Contains("nothing.clip"));
    Replay other = RunReplay(clip, e2e::TestProgram("flag_sync"), dir + "/other-json.log");
    INFO(other.output);
    CHECK(other.exit_status == 2);
    REQUIRE(other.verdict.is_object());
    CHECK(other.verdict["verdict"] == "error");
    CHECK_THAT(other.verdict["reason"].get<std::string>(), Catch::Contains("another build"));
  }
}

TEST_CASE("pecan replay --gdb stops where the anomaly forms and names its events",
          "[e2e][replay]") {
  const std::string dir = e2e::FreshDirectory("replay-gdb");
  nlohmann::json findings = Hunt("pecan_figure1", dir);
  const nlohmann::json* finding = FindingWithLines(findings, "race", {28, 39});
  REQUIRE(finding != nullptr);
  // gdb reads its commands from the test's empty stdin: it stops at the anomaly, prints the
  // message and the program's frame, then quits (killing the program).
  e2e::PecanRun run = e2e::RunPecan(
      {"replay", "--gdb", (*finding)["clip"]["path"], "--", e2e::ExampleBinary("pecan_figure1")},
      dir + "/gdb.log", 120);
  INFO(run.output);
  CHECK_THAT(run.output,
             Catch::Contains("pecan: the anomaly formed; its events in the order they run:"));
  // The message names the thread stopped and the access it is about to run...
  std::smatch stopped;
  const std::regex stopped_at(
      R"(pecan: stopped: (\S+), before its (\S+) y at \S*pecan_figure1\.c:(\d+) \((\w+)\) runs)");
  REQUIRE(std::regex_search(run.output, stopped, stopped_at));
  const std::string line = stopped[3];
  const std::string function = stopped[4];
  // ... and gdb's selected frame (printed by `frame` right after) is that access: the function
  // at "file:LINE", then the source line numbered LINE.
  const std::string after = run.output.substr(stopped.position(0));
  const std::regex frame_line("#\\d+ +.* in " + function + R"( \(.*\)\s+at \S*pecan_figure1\.c:)" +
                              line + "\n" + line + "\t");
  CHECK(std::regex_search(after, frame_line));
  // The race runs reversed: T2's write of y (line 39) is stopped and runs first, T1's read of
  // y (line 28) waits and runs second.
  CHECK(line == "39");
  CHECK(stopped[2] == "write");
  CHECK_THAT(run.output, Catch::Contains("pecan: `continue` runs " + std::string(stopped[1]) +
                                         "'s write y, then "));
  CHECK_THAT(run.output, Catch::Contains("'s read y, then lets the program run on"));
  // The verdict line lists the events in the same order.
  const std::string hatched = LineStartingWith(run.output, "pecan: hatched");
  INFO(hatched);
  REQUIRE(!hatched.empty());
  REQUIRE(hatched.find("pecan_figure1.c:39") != std::string::npos);
  CHECK(hatched.find("pecan_figure1.c:39") < hatched.find("pecan_figure1.c:28"));
}

TEST_CASE("pecan dump of a clip from a recorded run shows the source line of each step",
          "[e2e][replay]") {
  const std::string dir = e2e::FreshDirectory("replay-dump");
  const std::string clip = RecordedRunClip(e2e::TestProgram("flag_sync"), dir);
  e2e::PecanRun dump = e2e::RunPecan({"dump", clip}, dir + "/dump.log");
  INFO(dump.output);
  CHECK(ExitStatus(dump) == 0);
  CHECK_THAT(dump.output, Catch::Contains("for finding recorded (recorded"));
  CHECK_THAT(dump.output, Catch::Contains("flag_sync.c:14 (writer)"));  // data = 42
  CHECK_THAT(dump.output, Catch::Contains("flag_sync.c:24 (main)"));    // int seen = data
}

TEST_CASE("a replay whose schedule waits for a sleeping thread ends by its time bound",
          "[e2e][replay][timeout]") {
  const std::string dir = e2e::FreshDirectory("replay-time-bound");
  const std::string program = e2e::TestProgram("sleep_then_write");
  // Recorded with a sleep of 0 s; replayed with a 60 s sleep before main's last write, which the
  // schedule needs next. (Both runs read argv[1]: the program's reads of its arguments are
  // recorded, so a run with fewer arguments would diverge right there.)
  const std::string clip = RecordedRunClip(program, dir, {"0"});
  Replay replay = RunReplay(clip, program, dir + "/replay.log", {"--timeout", "2"}, {"60"});
  INFO(replay.output);
  CHECK(replay.exit_status == 3);
  REQUIRE(replay.verdict.is_object());
  CHECK(replay.verdict["verdict"] == "infeasible");
  CHECK_THAT(replay.verdict["reason"].get<std::string>(), Catch::StartsWith("time bound"));
  CHECK(replay.verdict["timed_out"] == true);
  CHECK(replay.verdict["exit_status"].is_null());
  CHECK(replay.verdict["failure"].is_null());
  CHECK(replay.seconds >= 2);
  CHECK(replay.seconds < 2 + 5);

  // Without the sleep the same clip is followed to its end.
  Replay quick = RunReplay(clip, program, dir + "/quick.log", {"--timeout", "10"}, {"0"});
  INFO(quick.output);
  CHECK(quick.exit_status == 0);
  CHECK(quick.verdict["verdict"] == "followed");
}

TEST_CASE("a hatched race that then crashes or exits non-zero reports how the program failed",
          "[e2e][replay][failure]") {
  SECTION("a crash (SIGSEGV)") {
    const std::string dir = e2e::FreshDirectory("replay-race-then-crash");
    const std::string program = e2e::TestProgram("race_then_crash");
    const std::string clip = e2e::RaceClip(program, dir, {15, 23});
    for (int i = 0; i < 3; ++i) {
      Replay replay = RunReplay(clip, program, dir + "/replay.log");
      INFO(replay.output);
      CHECK(replay.exit_status == 0);
      REQUIRE(replay.verdict.is_object());
      CHECK(replay.verdict["verdict"] == "hatched");
      CHECK(replay.verdict["failure"] == "crashed");
      CHECK(replay.verdict["signal_name"] == "SIGSEGV");
      CHECK(replay.verdict["exit_status"].is_null());
      CHECK(replay.verdict["timed_out"] == false);
    }
    e2e::PecanRun text = e2e::RunPecan({"replay", clip, "--", program}, dir + "/text.log");
    INFO(text.output);
    CHECK_THAT(LineStartingWith(text.output, "pecan: hatched: race"),
               Catch::EndsWith("; then crashed: the program died of SIGSEGV"));
  }
  SECTION("exit status 5") {
    const std::string dir = e2e::FreshDirectory("replay-race-then-exit");
    const std::string program = e2e::TestProgram("race_then_exit");
    const std::string clip = e2e::RaceClip(program, dir, {15, 23});
    for (int i = 0; i < 3; ++i) {
      Replay replay = RunReplay(clip, program, dir + "/replay.log");
      INFO(replay.output);
      CHECK(replay.exit_status == 0);
      REQUIRE(replay.verdict.is_object());
      CHECK(replay.verdict["verdict"] == "hatched");
      CHECK(replay.verdict["failure"] == "exit");
      CHECK(replay.verdict["exit_status"] == 5);
      CHECK(replay.verdict["signal"].is_null());
      CHECK(replay.verdict["failure_message"] == "the program exited with status 5");
    }
    e2e::PecanRun text = e2e::RunPecan({"replay", clip, "--", program}, dir + "/text.log");
    INFO(text.output);
    CHECK_THAT(LineStartingWith(text.output, "pecan: hatched: race"),
               Catch::EndsWith("; then exit: the program exited with status 5"));
  }
}

TEST_CASE("clips of a recorded program dump as STD that re-imports and as JSON lines",
          "[e2e][replay][dump]") {
  const std::string dir = e2e::FreshDirectory("replay-dump-formats");
  const std::string program = e2e::TestProgram("flag_sync");
  const std::string race = e2e::RaceClip(program, dir, {14, 24});
  std::filesystem::create_directories(dir + "/whole");
  const std::string recorded = RecordedRunClip(program, dir + "/whole");
  for (const std::string& clip : {race, recorded}) {
    DYNAMIC_SECTION(clip) {
      const pecan::proto::Clip message = pecan::ReadClipFile(clip);
      const size_t steps = static_cast<size_t>(message.step_kind_size());
      for (const bool strict : {false, true}) {
        // stdout alone: the STD text must be nothing but the dump.
        pecan::workflow::ChildSpec spec;
        spec.argv = {kPecanBinary, "dump", clip, "--format", "std"};
        if (strict) spec.argv.push_back("--strict-std");
        const std::string std_path = dir + (strict ? "/strict.std" : "/clip.std");
        spec.stdout_path = std_path;
        spec.stderr_path = dir + "/dump-std.err";
        spec.timeout_seconds = 60;
        REQUIRE(pecan::workflow::RunChild(spec).exit_status == 0);
        const std::string text = e2e::ReadText(std_path);
        INFO(text);
        CHECK(std::count(text.begin(), text.end(), '\n') >= static_cast<long>(steps));
        if (message.anomaly_steps_size() > 0) {
          CHECK_THAT(text, Catch::Contains("\n# anomaly 1/2\n"));
          CHECK_THAT(text, Catch::Contains("\n# anomaly 2/2\n"));
        }
        // pecan's own STD reader takes it back.
        e2e::PecanRun stats = e2e::RunPecan({"stats", std_path}, dir + "/stats.log");
        INFO(stats.output);
        CHECK(ExitStatus(stats) == 0);
        e2e::PecanRun convert =
            e2e::RunPecan({"convert", std_path, dir + "/reimported.pecan"}, dir + "/convert.log");
        INFO(convert.output);
        CHECK(ExitStatus(convert) == 0);
      }

      pecan::workflow::ChildSpec spec;
      spec.argv = {kPecanBinary, "dump", clip, "--format", "json"};
      spec.stdout_path = dir + "/clip.jsonl";
      spec.stderr_path = dir + "/dump-json.err";
      spec.timeout_seconds = 60;
      REQUIRE(pecan::workflow::RunChild(spec).exit_status == 0);
      std::istringstream lines(e2e::ReadText(dir + "/clip.jsonl"));
      std::vector<nlohmann::json> objects;
      for (std::string line; std::getline(lines, line);) {
        INFO(line);
        nlohmann::json object = nlohmann::json::parse(line, nullptr, false);
        REQUIRE_FALSE(object.is_discarded());
        objects.push_back(std::move(object));
      }
      REQUIRE(objects.size() == steps + 1);
      CHECK(objects[0]["type"] == "clip");
      CHECK(objects[0]["steps"] == steps);
      CHECK(objects[0]["finding"]["id"] == message.finding().id());
      for (size_t i = 1; i < objects.size(); ++i) {
        CHECK(objects[i]["type"] == "step");
        CHECK(objects[i]["step"] == i - 1);
      }
    }
  }
}
