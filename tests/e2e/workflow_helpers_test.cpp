// Unit tests of the workflow helpers behind `pecan hunt` and `pecan triage`: the bounded job
// runner, the child-process runner with its time bound, the swimlane SVG, the HTML summary and
// triage's merging of findings across traces.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "cli/workflow_child_process.h"
#include "cli/workflow_finding_merge.h"
#include "cli/workflow_html_summary.h"
#include "cli/workflow_job_runner.h"
#include "cli/workflow_swimlane_svg.h"

using namespace pecan::cli;

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
    auto clip = std::make_shared<pecan::proto::Clip>();
    clip->set_program(trace);  // tells which trace's clip won
    finding.clip = clip;
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

TEST_CASE("The HTML summary has one table row per finding and no external resources",
          "[workflow]") {
  std::vector<SummaryFinding> findings(3);
  for (size_t i = 0; i < findings.size(); i++) {
    findings[i].id = "f" + std::to_string(i);
    findings[i].pattern = i == 2 ? "atomicity" : "race";
    findings[i].variant = "W-R";
    findings[i].traces = {"a.pecan"};
    findings[i].events.push_back({1, "T1", "write", {"f", "a<b>.c", 3, "a<b>.c:3 (f)"}, "x"});
  }
  findings[0].verdict.outcome = "hatched";
  findings[0].verdict.failure = "assertion";
  findings[0].clip_path = "clips/f0.clip";
  findings[0].picture.run_thread = {0, 1};
  findings[0].picture.run_length = {1, 1};
  std::vector<SummaryTrace> traces = {{"a.pecan", "ok", "", {}, 10, 3, 0.1},
                                      {"b.pecan", "damaged", "b.pecan: bad magic", {}, 0, 0, 0}};
  std::string html = RenderSummaryHtml("pecan triage", traces, findings);
  CHECK(Count(html, "<tr class=\"finding\"") == 3);
  CHECK(Count(html, "<svg") == 1);
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
