// Unit tests of the workflow helpers behind `pecan hunt` and `pecan triage`: the bounded job
// runner, the child-process runner with its time bound, the swimlane SVG and the clip's picture,
// the HTML summary, the SARIF summary, the report order and triage's merging of findings.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "trace_format/clip_file.h"
#include "workflow/child_process.h"
#include "workflow/clip_picture.h"
#include "workflow/finding_groups.h"
#include "workflow/finding_merge.h"
#include "workflow/finding_summary.h"
#include "workflow/html_summary.h"
#include "workflow/job_runner.h"
#include "workflow/replay_runner.h"
#include "workflow/source_excerpt.h"
#include "workflow/stored_clip.h"
#include "workflow/summary_sarif.h"
#include "workflow/swimlane_svg.h"

using namespace pecan::workflow;

namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    n++;
  return n;
}

std::string TempPath(const std::string& leaf) {
  return "/tmp/pecan-e2e-helpers-" + std::to_string(::getpid()) + "-" + leaf;
}

std::string MadeDirectory(const std::string& path) {
  std::filesystem::create_directories(path);
  return path;
}

// Where the findings' clips are spilled, as triage does, inside a directory of this process's
// own (a spill directory removes the spill directories it finds beside it); removed at exit.
const std::string& SpillDirectory() {
  static const struct Spill {
    std::string parent = MadeDirectory(TempPath("spill"));
    ClipSpillDirectory directory{parent};
    ~Spill() { std::filesystem::remove_all(parent); }
  } spill;
  return spill.directory.path();
}

// One trace's finding for the merger: its key, witnesses and (steps > 0) a clip of that length.
TriagedFinding Triaged(const std::string& key, uint64_t witnesses, uint64_t steps,
                       const std::string& trace) {
  TriagedFinding finding;
  finding.summary.key = key;
  finding.summary.id = "id-" + key;
  finding.summary.pattern = "race";
  finding.summary.witnesses = witnesses;
  finding.summary.traces = {trace};
  if (steps > 0) {
    pecan::proto::Clip clip;
    clip.set_program(trace);  // tells which trace's clip won
    finding.clip = StoredClip::Spill(clip, SpillDirectory());
    finding.summary.clip_steps = steps;
    finding.summary.clip_trace = trace;
  } else {
    finding.summary.clip_error = "no feasible schedule";
  }
  return finding;
}

TriagedTrace TraceWith(const std::string& path, std::vector<TriagedFinding> findings) {
  TriagedTrace trace;
  trace.trace.path = path;
  trace.findings = std::move(findings);
  return trace;
}

}  // namespace

TEST_CASE("a spilled clip is a file until its last reference goes, in a directory that goes too",
          "[workflow][triage]") {
  std::string file, directory;
  std::shared_ptr<const StoredClip> outliving;
  const std::string own = MadeDirectory(TempPath("spill-test"));
  {
    const ClipSpillDirectory spill(own);
    directory = spill.path();
    CHECK(std::filesystem::is_directory(directory));
    pecan::proto::Clip clip;
    clip.set_program("/bin/app");
    clip.set_generator("test");
    auto stored = StoredClip::Spill(clip, directory);
    file = stored->path();
    CHECK(std::filesystem::exists(file));
    CHECK(stored->program() == "/bin/app");
    CHECK(pecan::ReadClipFile(file).generator() == "test");
    auto copy = stored;
    stored.reset();
    CHECK(std::filesystem::exists(file));  // still referenced
    copy.reset();
    CHECK_FALSE(std::filesystem::exists(file));
    outliving = StoredClip::Spill(clip, directory);  // the directory takes it along
  }
  CHECK_FALSE(std::filesystem::exists(directory));
  outliving.reset();  // its file is gone already: nothing to do
  // What an interrupted run left in the same parent goes when the next one starts.
  const std::string& parent = own;
  const std::string left = parent + "/" + ClipSpillDirectory::kPrefix + "abc123";
  std::filesystem::create_directories(left);
  std::ofstream(left + "/0.clip") << "x";
  std::ofstream(parent + "/mine.txt") << "x";
  {
    const ClipSpillDirectory next(parent);
    CHECK_FALSE(std::filesystem::exists(left));
    CHECK(std::filesystem::exists(parent + "/mine.txt"));  // anything else stays
  }
  std::filesystem::remove_all(parent);
  const std::string kept = TempPath("kept.clip");
  std::ofstream(kept) << "x";
  StoredClip::Existing(kept, "/bin/app").reset();
  CHECK(std::filesystem::exists(kept));  // not ours to remove
  std::filesystem::remove(kept);
}

TEST_CASE("RunJobs runs every job once and never more than N at a time", "[workflow]") {
  std::atomic<int> running{0}, most{0};
  std::vector<int> ran(40, 0);
  RunJobs(ran.size(), 3, [&](size_t i) {
    int now = ++running;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ran[i]++;
    --running;
  });
  for (int count : ran) CHECK(count == 1);
  CHECK(most.load() <= 3);
  CHECK(most.load() >= 2);  // it did run jobs side by side
}

TEST_CASE("RunJobs finishes the other jobs when one throws, then rethrows", "[workflow]") {
  std::atomic<int> done{0};
  size_t callbacks = 0;
  CHECK_THROWS_WITH(RunJobs(
                        10, 2,
                        [&](size_t i) {
                          if (i == 3) throw std::runtime_error("job 3 failed");
                          ++done;
                        },
                        [&](size_t) { callbacks++; }),
                    "job 3 failed");
  CHECK(done.load() == 9);
  CHECK(callbacks == 10);
}

TEST_CASE("RunChild reports exit status, signal, output and environment", "[workflow]") {
  std::string out = TempPath("out.txt");
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo \"$PECAN_E2E_VALUE\"; echo oops >&2; exit 7"};
  spec.environment["PECAN_E2E_VALUE"] = "hello";
  spec.stdout_path = out;
  spec.stderr_path = out;
  ChildResult result = RunChild(spec);
  CHECK(result.exited);
  CHECK(result.exit_status == 7);
  CHECK_FALSE(result.timed_out);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "hello\noops\n");
  std::remove(out.c_str());

  ChildSpec abort_spec;
  abort_spec.argv = {"/bin/sh", "-c", "kill -ABRT $$"};
  ChildResult aborted = RunChild(abort_spec);
  CHECK_FALSE(aborted.exited);
  CHECK(aborted.signal == SIGABRT);
}

TEST_CASE("RunChild ends a child (and its children) at the time bound", "[workflow]") {
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30"};
  spec.timeout_seconds = 0.3;
  auto start = std::chrono::steady_clock::now();
  ChildResult result = RunChild(spec);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(result.timed_out);
  CHECK(result.signal == SIGKILL);
  CHECK(seconds < 5);
}

TEST_CASE("RunChild names a program that cannot start", "[workflow]") {
  ChildSpec spec;
  spec.argv = {"/nonexistent/pecan-e2e-program"};
  CHECK_THROWS_WITH(RunChild(spec),
                    Catch::Contains("/nonexistent/pecan-e2e-program: cannot start"));
}

TEST_CASE("The swimlane has a lane per thread, a box per run segment and the anomaly marked",
          "[workflow]") {
  SwimlanePicture picture;
  picture.lane_names = {"T0", "T1", "T2"};
  // T0 x3, T1 x2, T0 x1, T2 x4: steps 0..9. Steps 5 (T0) is moved; 4 and 9 are the anomaly.
  picture.run_thread = {0, 1, 0, 2};
  picture.run_length = {3, 2, 1, 4};
  picture.moved_steps = {5};
  picture.anomaly_steps = {4, 9};
  picture.anomaly_labels = {"T1 write a.c:3", "T2 read <b>.c:9"};
  std::string svg = RenderSwimlaneSvg(picture);
  CHECK(Count(svg, "class=\"lane-name\"") == 3);
  CHECK(Count(svg, "<rect class=\"run\"") == 3);
  CHECK(Count(svg, "<rect class=\"run moved\"") == 1);
  CHECK(Count(svg, "class=\"handoff\"") == 3);
  CHECK(Count(svg, "<g class=\"anomaly\">") == 2);
  CHECK(svg.find("&lt;b&gt;.c:9") != std::string::npos);
  CHECK(svg.find("<b>") == std::string::npos);
}

TEST_CASE("A long clip keeps its tail in the swimlane and folds the rest", "[workflow]") {
  SwimlanePicture picture;
  picture.lane_names = {"T0", "T1"};
  for (int r = 0; r < 1000; r++) {
    picture.run_thread.push_back(r % 2);
    picture.run_length.push_back(2);
  }
  picture.anomaly_steps = {0, 1999};
  std::string svg = RenderSwimlaneSvg(picture);
  CHECK(svg.find("earlier steps") != std::string::npos);
  CHECK(Count(svg, "<rect class=\"run\"") < 300);
  CHECK(Count(svg, "<g class=\"anomaly\">") == 1);  // the first one lies in the folded part
}

TEST_CASE(
    "The HTML summary has one table row per bug, its variants inside, and no external resources",
    "[workflow]") {
  std::vector<SummaryFinding> findings(3);
  for (size_t i = 0; i < findings.size(); i++) {
    findings[i].id = "f" + std::to_string(i);
    findings[i].pattern = i == 2 ? "atomicity" : "race";
    findings[i].variant = "W-R";
    findings[i].traces = {"a.pecan"};
    findings[i].events.push_back({1, "T1", "write", {"f", "a<b>.c", 3, "a<b>.c:3 (f)"}, "x", {}, {}});
  }
  findings[0].verdict.outcome = "hatched";
  findings[0].verdict.failure = "assertion";
  findings[0].clip_path = "clips/f0.clip";
  findings[0].picture.run_thread = {0, 1};
  findings[0].picture.run_length = {1, 1};
  std::vector<SummaryTrace> traces = {{"a.pecan", "ok", "", {}, 10, 3, 0.1},
                                      {"b.pecan", "damaged", "b.pecan: bad magic", {}, 0, 0, 0}};
  std::string html = RenderSummaryHtml("pecan triage", traces, findings);
  // Three findings on `x` at a<b>.c:3: one bug with three variants.
  CHECK(Count(html, "<tr class=\"bug\"") == 1);
  CHECK(Count(html, "<section class=\"variant\"") == 3);
  CHECK(html.find("data race, atomicity violation on `x`") != std::string::npos);
  CHECK(Count(html, "<svg") == 2);  // the window around the anomaly, and the whole clip folded
  CHECK(html.find("1 damaged trace skipped") != std::string::npos);
  CHECK(html.find("a&lt;b&gt;.c:3") != std::string::npos);
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
}

TEST_CASE("Merging keeps one finding per key, every trace that shows it and the best clip",
          "[workflow][triage]") {
  // Traces 0..3 as they might finish in parallel: the result must not depend on that order.
  std::vector<std::pair<size_t, TriagedTrace>> arrivals;
  arrivals.emplace_back(
      2, TraceWith("c.pecan", {Triaged("A", 1, 9, "c.pecan"), Triaged("B", 2, 0, "c.pecan")}));
  arrivals.emplace_back(0, TraceWith("a.pecan", {Triaged("A", 3, 12, "a.pecan")}));
  // The same key twice in one trace counts that trace once (its witnesses still add up).
  arrivals.emplace_back(
      3, TraceWith("d.pecan", {Triaged("A", 1, 9, "d.pecan"), Triaged("A", 1, 30, "d.pecan"),
                               Triaged("B", 1, 7, "d.pecan")}));
  arrivals.emplace_back(1, TraceWith("b.pecan", {}));

  auto merge = [](std::vector<std::pair<size_t, TriagedTrace>> order) {
    FindingMerger merger;
    for (auto& [position, trace] : order) merger.Add(position, std::move(trace));
    return merger.Results();
  };
  auto reversed = arrivals;
  std::reverse(reversed.begin(), reversed.end());
  for (const auto& results : {merge(arrivals), merge(reversed)}) {
    REQUIRE(results.size() == 2);
    const TriagedFinding& a = results[0];
    CHECK(a.summary.key == "A");
    CHECK(a.summary.traces == std::vector<std::string>{"a.pecan", "c.pecan", "d.pecan"});
    CHECK(a.summary.witnesses == 6);
    // Fewest steps wins; between c and d (9 steps each) the earlier trace.
    REQUIRE(a.clip != nullptr);
    CHECK(a.clip->program() == "c.pecan");
    CHECK(a.summary.clip_steps == 9);
    CHECK(a.summary.clip_trace == "c.pecan");

    const TriagedFinding& b = results[1];
    CHECK(b.summary.key == "B");
    CHECK(b.summary.traces == std::vector<std::string>{"c.pecan", "d.pecan"});
    // A clip beats no clip, even from a later trace.
    REQUIRE(b.clip != nullptr);
    CHECK(b.clip->program() == "d.pecan");
    CHECK(b.summary.clip_error.empty());
  }
}

TEST_CASE("Merged findings in triage keep the analyzer's id, and a clash of two keys gets a suffix",
          "[workflow][triage]") {
  // Two builds of one program: the same file name and offsets (so the same analyzer id), but
  // different build-ids (so different keys). Both must keep distinct ids, whatever the order.
  for (bool reversed : {false, true}) {
    TriagedFinding old_build = Triaged("race|R-W|aaaa+0x10|aaaa+0x20", 1, 5, "old.pecan");
    TriagedFinding new_build = Triaged("race|R-W|bbbb+0x10|bbbb+0x20", 1, 5, "new.pecan");
    TriagedFinding other = Triaged("race|W-W|aaaa+0x30|aaaa+0x30", 1, 5, "old.pecan");
    old_build.summary.id = new_build.summary.id = "race-0123abcd";
    other.summary.id = "race-4567cdef";
    FindingMerger merger;
    merger.Add(reversed ? 1 : 0, TraceWith("old.pecan", {old_build, other}));
    merger.Add(reversed ? 0 : 1, TraceWith("new.pecan", {new_build}));
    std::vector<TriagedFinding> results = merger.Results();
    REQUIRE(results.size() == 3);
    CHECK(results[0].summary.id == "race-0123abcd");  // "aaaa" sorts first: it keeps the id
    const std::string suffix =
        HexString(StableDigest("race|R-W|bbbb+0x10|bbbb+0x20") & 0xffffffffu, 8);
    CHECK(suffix.size() == 8);
    CHECK(results[1].summary.id == "race-0123abcd-" + suffix);
    CHECK(results[2].summary.id == "race-4567cdef");
  }
}

TEST_CASE("The workflow report lists confirmed findings that failed the program first",
          "[workflow]") {
  auto finding = [](const std::string& key, const std::string& outcome,
                    const std::string& failure) {
    SummaryFinding f;
    f.key = key;
    f.pattern = "race";
    f.verdict.outcome = outcome;
    f.verdict.failure = failure;
    return f;
  };
  std::vector<SummaryFinding> findings = {finding("a", "infeasible", ""),
                                          finding("b", "hatched", ""),
                                          finding("c", "error", ""),
                                          finding("d", "hatched", "assertion"),
                                          finding("e", "", ""),
                                          finding("f", "hatched", "crashed"),
                                          finding("g", "hatched", "exit"),
                                          finding("h", "hatched", "")};
  std::stable_sort(findings.begin(), findings.end(), SummaryOrder);
  std::string order;
  for (const auto& f : findings) order += f.key;
  CHECK(order == "dfgbheac");
}

TEST_CASE("The workflow's SARIF reflects the verdicts and names sources below the source root",
          "[workflow]") {
  auto finding = [](const std::string& id, const std::string& outcome, const std::string& file) {
    SummaryFinding f;
    f.id = id;
    f.pattern = "race";
    f.variant = "R-W";
    f.traces = {"t.pecan"};
    f.verdict.outcome = outcome;
    f.events.push_back({1, "T1", "read", {"f", file, 3, file + ":3 (f)"}, "x", {}, {}});
    f.events.push_back({2, "T2", "write", {"g", "/elsewhere/b c#.c", 9, "b:9 (g)"}, "x", {}, {}});
    return f;
  };
  std::vector<SummaryFinding> findings = {finding("race-1", "hatched", "/src/project/lib/a.c"),
                                          finding("race-2", "infeasible", "/src/project/lib/a.c"),
                                          finding("race-3", "", "/src/project/lib/a.c"),
                                          finding("race-4", "error", "rel/x.c")};
  findings[0].verdict.failure = "assertion";
  nlohmann::json sarif = SummarySarif(findings, "/src/project/");
  const auto& run = sarif["runs"][0];
  CHECK(run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file:///src/project/");
  CHECK(run["properties"]["refutedByReplay"] == std::vector<std::string>{"race-2"});
  const auto& results = run["results"];
  REQUIRE(results.size() == 3);
  CHECK(results[0]["partialFingerprints"]["pecanFinding/v1"] == "race-1");
  CHECK(results[0]["level"] == "error");
  CHECK(results[0]["properties"]["failure"] == "assertion");
  CHECK(results[1]["level"] == "warning");  // not replayed
  CHECK(results[1]["properties"]["verdict"] == "not replayed");
  CHECK(results[2]["level"] == "warning");  // the replay could not run: still a prediction
  const auto& located = results[0]["locations"][0]["physicalLocation"]["artifactLocation"];
  CHECK(located == nlohmann::json{{"uri", "lib/a.c"}, {"uriBaseId", "SRCROOT"}});
  CHECK(results[0]["relatedLocations"][1]["physicalLocation"]["artifactLocation"] ==
        nlohmann::json{{"uri", "file:///elsewhere/b%20c%23.c"}});
  CHECK(results[2]["locations"][0]["physicalLocation"]["artifactLocation"] ==
        nlohmann::json{{"uri", "rel/x.c"}});

  CHECK(SarifArtifactLocation("/src/project-b/a.c", "/src/project")["uri"] ==
        "file:///src/project-b/a.c");
  CHECK(SarifArtifactLocation("/src/project/../other/a.c", "/src/project")["uri"] ==
        "file:///src/other/a.c");
  CHECK(SarifArtifactLocation("/a.c", "/") ==
        nlohmann::json{{"uri", "a.c"}, {"uriBaseId", "SRCROOT"}});
}

TEST_CASE("The workflow's swimlane of a race shows its two accesses in the order replay runs them",
          "[workflow]") {
  // T0 x2, T1 x3, T2 x2: steps 0..6. The race: T1's step 4 and T2's step 5, back to back.
  pecan::proto::Clip clip;
  for (uint32_t t = 0; t < 3; t++) {
    auto* thread = clip.add_threads();
    thread->set_id(t);
    thread->set_name("T" + std::to_string(t));
  }
  for (uint32_t thread : {0u, 1u, 2u}) clip.add_run_thread(thread);
  for (uint32_t length : {2u, 3u, 2u}) clip.add_run_length(length);
  clip.add_moved_steps(5);
  clip.add_anomaly_steps(4);
  clip.add_anomaly_steps(5);
  clip.mutable_finding()->set_pattern("race");
  std::vector<SummaryEvent> events = {{1, "T1", "read", {"f", "a.c", 3, "a.c:3"}, "y", {}, {}},
                                      {2, "T2", "write", {"g", "a.c", 9, "a.c:9"}, "y", {}, {}}};

  SwimlanePicture picture = PictureOfClip(clip, events);
  CHECK(picture.race_reversed);
  CHECK(picture.run_thread == std::vector<uint32_t>{0, 1, 2, 1, 2});
  CHECK(picture.run_length == std::vector<uint32_t>{2, 2, 1, 1, 1});
  CHECK(picture.anomaly_steps == std::vector<uint64_t>{4, 5});
  CHECK(picture.anomaly_labels ==
        std::vector<std::string>{"T2 write a.c:9 (g)", "T1 read a.c:3 (f)"});
  CHECK(picture.moved_steps == std::vector<uint64_t>{4});  // T2's moved write now runs at 4
  std::string svg = RenderSwimlaneSvg(picture);
  CHECK(svg.find("e1: step 4 — T2 write a.c:9 (g)") != std::string::npos);
  CHECK(svg.find("e2: step 5 — T1 read a.c:3 (f)") != std::string::npos);

  // One-step runs: T0 x2, T1 x1, T2 x1, T1 x2 becomes T0 x2, T2 x1, T1 x3.
  pecan::proto::Clip short_runs = clip;
  short_runs.add_run_thread(1);
  short_runs.clear_run_length();
  short_runs.clear_moved_steps();
  for (uint32_t length : {2u, 1u, 1u, 2u}) short_runs.add_run_length(length);
  short_runs.clear_anomaly_steps();
  short_runs.add_anomaly_steps(2);
  short_runs.add_anomaly_steps(3);
  picture = PictureOfClip(short_runs, events);
  CHECK(picture.run_thread == std::vector<uint32_t>{0, 2, 1});
  CHECK(picture.run_length == std::vector<uint32_t>{2, 1, 3});

  // Not adjacent, or not a race: drawn as the clip holds it.
  pecan::proto::Clip apart = clip;
  apart.clear_anomaly_steps();
  apart.add_anomaly_steps(3);
  apart.add_anomaly_steps(5);
  picture = PictureOfClip(apart, events);
  CHECK_FALSE(picture.race_reversed);
  CHECK(picture.run_thread == std::vector<uint32_t>{0, 1, 2});
  CHECK(picture.anomaly_labels[0] == "T1 read a.c:3 (f)");
  pecan::proto::Clip atomicity = clip;
  atomicity.mutable_finding()->set_pattern("atomicity");
  CHECK_FALSE(PictureOfClip(atomicity, events).race_reversed);
}

TEST_CASE("The workflow finds a pecan child's error line among its other output", "[workflow]") {
  const std::string log = TempPath("record.log");
  std::ofstream(log) << "program output\npecan: error: record: app was not built for recording\n"
                        "How to build PROGRAM for recording:\n  CMake: pecan_instrument(app)\n";
  CHECK(LastPecanError(log) == "record: app was not built for recording");
  std::ofstream(log) << "no error here\n";
  CHECK(LastPecanError(log).empty());
  std::remove(log.c_str());
}

namespace {

SummaryFinding Variant(const std::string& id, const std::string& pattern,
                       const std::string& variant, const std::string& variable,
                       std::vector<uint32_t> lines, const std::string& outcome = "",
                       const std::string& failure = "") {
  SummaryFinding finding;
  finding.id = id;
  finding.key = pattern + "|" + variant + "|" + id;
  finding.pattern = pattern;
  finding.variant = variant;
  finding.traces = {"t.pecan"};
  for (uint32_t line : lines)
    finding.events.push_back({1, "T1", "write", {"count", "/src/hits.c", line, ""}, variable, {}, {}});
  finding.verdict.outcome = outcome;
  finding.verdict.failure = failure;
  return finding;
}

}  // namespace

TEST_CASE("Findings on one variable at shared code are one bug, as strong as its best evidence",
          "[workflow][groups]") {
  // An unprotected hits++ (line 7): three races and an atomicity violation; a race on another
  // variable at the same line; a refuted race on `ready`, and a heap race without a name that
  // shares no code with anything.
  const std::vector<SummaryFinding> findings = {
      Variant("race-rw", "race", "R-W", "hits", {7, 7}, "infeasible"),
      Variant("other", "race", "W-W", "misses", {7, 7}),
      Variant("race-ww", "race", "W-W", "hits", {7, 7}, "hatched"),
      Variant("ready", "race", "W-R", "ready", {20, 31}, "infeasible"),
      Variant("atom", "atomicity", "R-W-W", "hits", {7, 7, 7}, "hatched", "assertion"),
      Variant("heap", "race", "W-R", "", {40, 44}),
      Variant("race-wr", "race", "W-R", "hits", {7, 7}),
  };
  const std::vector<FindingGroup> groups = GroupFindings(findings);
  REQUIRE(groups.size() == 4);
  // Failed first, then predicted ones in order of appearance, refuted last.
  CHECK(groups[0].title == "atomicity violation, data race on `hits`");
  CHECK(groups[0].evidence == Evidence::kFailed);
  CHECK(groups[0].variable == "hits");
  CHECK(groups[0].members ==
        std::vector<size_t>{4, 2, 6, 0});  // failed, confirmed, predicted, refuted
  CHECK(groups[0].sites.size() == 1);
  CHECK(groups[0].traces == 1);
  CHECK(groups[1].title == "data race on `misses`");
  CHECK(groups[1].evidence == Evidence::kPredicted);
  CHECK(groups[2].title == "data race");
  CHECK(groups[2].members == std::vector<size_t>{5});
  CHECK(groups[3].title == "data race on `ready`");
  CHECK(groups[3].evidence == Evidence::kRefuted);
  CHECK(std::string(EvidenceName(groups[3].evidence)) == "refuted");
  // Ids: "bug-" and 8 hex digits, distinct, and the same whatever order the findings come in.
  std::set<std::string> ids;
  for (const auto& group : groups) {
    CHECK(group.id.rfind("bug-", 0) == 0);
    CHECK(group.id.size() == 12);
    ids.insert(group.id);
  }
  CHECK(ids.size() == 4);
  std::vector<SummaryFinding> reversed(findings.rbegin(), findings.rend());
  std::set<std::string> again;
  for (const auto& group : GroupFindings(reversed)) again.insert(group.id);
  CHECK(again == ids);

  // JSON: one object per bug with its variants' ids; each finding names its bug.
  nlohmann::json json = GroupsJson(groups, findings);
  REQUIRE(json.size() == 4);
  CHECK(json[0]["evidence"] == "failed");
  CHECK(json[0]["findings"] == nlohmann::json({"atom", "race-ww", "race-wr", "race-rw"}));
  CHECK(json[0]["sites"][0]["line"] == 7);
  nlohmann::json objects = nlohmann::json::array();
  for (size_t i = 0; i < findings.size(); i++) objects.push_back({{"id", findings[i].id}});
  MarkBugs(objects, groups);
  CHECK(objects[4]["bug"] == groups[0].id);
  CHECK(objects[0]["bug"] == groups[0].id);
  CHECK(objects[3]["bug"] == groups[3].id);

  // The page: three bugs in the table, the refuted one folded away in its own section.
  const std::string html = RenderSummaryHtml("pecan triage", {}, findings);
  CHECK(Count(html, "<tr class=\"bug\"") == 4);
  const size_t refuted = html.find("<details id=\"refuted\">");
  REQUIRE(refuted != std::string::npos);
  CHECK(html.find("data-id=\"" + groups[3].id + "\"") > refuted);
  CHECK(html.find("data-id=\"" + groups[0].id + "\"") < refuted);
}

TEST_CASE("Source excerpts show paths below the root relative to it and the lines around a site",
          "[workflow][source]") {
  const std::string dir = TempPath("source");
  std::filesystem::create_directories(dir + "/src");
  {
    std::ofstream file(dir + "/src/a.c");
    for (int line = 1; line <= 10; line++) file << "line " << line << "\n";
  }
  SourceExcerpts sources(dir + "/");
  const SummarySite site{"work", dir + "/src/a.c", 2, "unused"};
  CHECK(sources.DisplaySite(site) == "src/a.c:2 (work)");
  CHECK(sources.DisplayPath("/elsewhere/b.c") == "/elsewhere/b.c");
  CHECK(sources.DisplayPath(dir + "x/a.c") == dir + "x/a.c");  // a sibling with the same prefix
  const auto around = sources.Around(site);
  REQUIRE(around.size() == 4);  // lines 1..4: clipped at the top
  CHECK(around.front() == std::make_pair(uint32_t{1}, std::string("line 1")));
  CHECK(around.back() == std::make_pair(uint32_t{4}, std::string("line 4")));
  CHECK(sources.Around({"", dir + "/src/a.c", 10, ""}, 1).size() == 2);
  CHECK(sources.Around({"", dir + "/src/a.c", 11, ""}).empty());
  CHECK(sources.Around({"", dir + "/src/missing.c", 3, ""}).empty());
  CHECK(sources.DisplaySite({"", "", 0, "app+0x10"}) == "app+0x10");
  std::filesystem::remove_all(dir);
}

TEST_CASE("The swimlane shows a labelled window around the anomaly, whatever the clip's length",
          "[workflow][swimlane]") {
  // 1,000 runs of two threads; the race's two accesses are the last step of run 600 and the first
  // of run 601, which the picture shows reversed.
  SwimlanePicture picture;
  picture.lane_names = {"T0", "T1"};
  for (uint32_t r = 0; r < 1000; r++) {
    picture.run_thread.push_back(r % 2);
    picture.run_length.push_back(3);
  }
  picture.anomaly_steps = {600 * 3 + 2, 601 * 3};
  picture.anomaly_labels = {"T0 write a.c:3", "T1 read a.c:9"};
  picture.race_reversed = true;
  const auto [begin, end] = AnomalyWindow(picture);
  CHECK(begin == 595);
  CHECK(end == 604);
  CHECK(end - begin <= 10);
  // Labels: each run of the window named by its last step (the picture's step 1802 is the
  // clip's 1803 and back), the other runs not at all.
  LabelWindowRuns(picture, [](uint64_t step) { return "step " + std::to_string(step); });
  REQUIRE(picture.run_labels.size() == 1000);
  CHECK(picture.run_labels[594].empty());
  CHECK(picture.run_labels[595] == "step 1787");
  CHECK(picture.run_labels[600] == "step 1803");  // its last step is the first access, swapped
  CHECK(picture.run_labels[603] == "step 1811");
  CHECK(picture.run_labels[604].empty());
  const std::string window = RenderSwimlaneWindowSvg(picture);
  CHECK(Count(window, "class=\"run-label\"") == 9);
  CHECK(window.find("1785 earlier steps") != std::string::npos);
  CHECK(window.find("1188 later steps") != std::string::npos);
  CHECK(Count(window, "<g class=\"anomaly\"") == 2);
  // The whole clip has no labels and keeps its tail.
  const std::string whole = RenderSwimlaneSvg(picture);
  CHECK(Count(whole, "class=\"run-label\"") == 0);
  // A clip without anomaly steps shows its last runs.
  picture.anomaly_steps.clear();
  CHECK(AnomalyWindow(picture) == std::make_pair(size_t{990}, size_t{1000}));
}
