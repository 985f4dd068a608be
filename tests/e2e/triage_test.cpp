// `pecan triage` through the real binary over 50 recorded traces of several example programs
// (several runs each, plus a truncated and a corrupted file): findings merge correctly (checked
// against `pecan analyze` of each trace on its own), the damaged file is reported and skipped,
// summary.json matches summary.html's table, and headless Chromium loads the page cleanly.
// Smaller cases: the program after --replay --, a replay that cannot run, bad arguments, and the
// progress line on a terminal.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"
#include "workflow/job_runner.h"

namespace fs = std::filesystem;

namespace {

// A finding's identity as the per-trace JSON report states it: pattern, variant and each
// event's kind and source line.
std::string ReportKey(const nlohmann::json& finding) {
  std::string key = finding.value("pattern", "") + "|" + finding.value("variant", "");
  for (const auto& event : finding["events"]) {
    const auto& site = event["site"];
    key += "|" + event.value("kind", "") + "@" +
           fs::path(site.value("file", "")).filename().string() + ":" +
           std::to_string(site.value("line", 0)) + ":" + site.value("function", "");
  }
  return key;
}

struct Corpus {
  std::string dir;                  // the traces
  std::vector<std::string> traces;  // every readable trace, by program and run
  std::string truncated, corrupted;
};

void Record(const std::string& program, const std::string& trace,
            const std::vector<std::string>& options = {}) {
  std::vector<std::string> arguments = {"record", "-q"};
  arguments.insert(arguments.end(), options.begin(), options.end());
  arguments.insert(arguments.end(), {"-o", trace, "--", e2e::ExampleBinary(program)});
  e2e::RunPecan(arguments, trace + ".log");
  fs::remove(trace + ".log");
}

// Records each program `runs` times (two at a time); with `damaged`, adds a truncated copy of a
// trace recorded with small chunks and a corrupted file.
Corpus RecordCorpus(const std::string& name, const std::vector<std::string>& programs, int runs,
                    bool damaged) {
  Corpus c;
  c.dir = e2e::FreshDirectory(name) + "/traces";
  fs::create_directories(c.dir);
  std::vector<std::pair<std::string, std::string>> jobs;
  for (const auto& program : programs)
    for (int run = 0; run < runs; run++)
      jobs.emplace_back(program, c.dir + "/" + program + "-" + std::to_string(run) + ".pecan");
  pecan::workflow::RunJobs(jobs.size(), 2, [&](size_t i) { Record(jobs[i].first, jobs[i].second); });
  for (const auto& job : jobs)
    if (fs::exists(job.second)) c.traces.push_back(job.second);
  if (!damaged) return c;
  // Small chunks, then cut in the middle: the complete chunks must still be analyzed.
  std::string whole = c.dir + "/whole.tmp";
  Record("lost_update", whole, {"--chunk-events", "8"});
  std::string bytes = e2e::ReadText(whole);
  fs::remove(whole);
  c.truncated = c.dir + "/lost_update-truncated.pecan";
  std::ofstream(c.truncated, std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 3);
  c.corrupted = c.dir + "/corrupted.pecan";
  std::ofstream(c.corrupted, std::ios::binary) << "PECAN? this is not a trace at all\n"
                                               << std::string(300, 'x');
  return c;
}

// ---- The findings table, as summary.html writes it and as the browser's DOM holds it.

std::string DecodeEntities(std::string text) {
  const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"},  {"&gt;", ">"},   {"&quot;", "\""},
      {"&#39;", "'"}, {"&nbsp;", " "}, {"&amp;", "&"}};  // last, so "&amp;lt;" stays "&lt;"
  for (const auto& [entity, character] : entities)
    for (size_t at = text.find(entity); at != std::string::npos;
         at = text.find(entity, at + std::string(character).size()))
      text.replace(at, std::string(entity).size(), character);
  return text;
}

// The text of an HTML fragment; the <div>s of the sites cell become lines.
std::string CellText(std::string html) {
  for (size_t at = html.find("</div><div>"); at != std::string::npos;
       at = html.find("</div><div>", at + 1))
    html.replace(at, 11, "\n");
  std::string text;
  bool in_tag = false;
  for (char c : html) {
    if (c == '<') in_tag = true;
    if (!in_tag) text += c;
    if (c == '>') in_tag = false;
  }
  return DecodeEntities(text);
}

struct FindingRow {
  std::string id;
  std::vector<std::string> cells;  // text of each cell
};

std::string Attribute(const std::string& tag, const std::string& name) {
  size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  at += name.size() + 3;
  return DecodeEntities(tag.substr(at, tag.find('"', at) - at));
}

// The rows of table#`id`'s body (one per bug), in document order.
std::vector<FindingRow> FindingRows(const std::string& html, const std::string& id = "bugs") {
  std::vector<FindingRow> rows;
  size_t table = html.find("<table id=\"" + id + "\">");
  if (table == std::string::npos) return rows;
  const size_t table_end = html.find("</table>", table);
  for (size_t at = html.find("<tr class=\"bug\"", table); at < table_end;
       at = html.find("<tr class=\"bug\"", at + 1)) {
    const size_t row_end = html.find("</tr>", at);
    FindingRow row;
    row.id = Attribute(html.substr(at, html.find('>', at) - at), "data-id");
    for (size_t cell = html.find("<td", at); cell < row_end; cell = html.find("<td", cell + 1)) {
      const size_t content = html.find('>', cell) + 1;
      row.cells.push_back(CellText(html.substr(content, html.find("</td>", content) - content)));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// What the table must show for a bug of summary.json, after the "#" column: its evidence, title,
// code locations, variants (pattern, variant and verdict each) and traces.
std::vector<std::string> ExpectedCells(const nlohmann::json& bug,
                                       const std::map<std::string, nlohmann::json>& findings) {
  std::string sites, variants;
  for (const auto& site : bug["sites"]) {
    if (!sites.empty()) sites += "\n";
    sites += site.value("text", "");
  }
  for (const auto& id : bug["findings"]) {
    const nlohmann::json& finding = findings.at(id.get<std::string>());
    std::string verdict = "not replayed";
    if (finding["verdict"].is_object()) {
      verdict = finding["verdict"].value("outcome", "");
      if (verdict == "hatched") {
        const std::string failure = finding["verdict"].value("failure", "");
        verdict = failure.empty() ? "confirmed" : "confirmed, " + failure;
      }
    }
    if (!variants.empty()) variants += "\n";
    variants +=
        finding.value("pattern", "") + " " + finding.value("variant", "") + " \u2014 " + verdict;
  }
  return {bug.value("evidence", ""), bug.value("title", ""), sites, variants,
          std::to_string(bug["traces"].get<uint64_t>())};
}

std::vector<std::string> WithoutFirst(const std::vector<std::string>& cells) {
  return cells.empty() ? cells : std::vector<std::string>(cells.begin() + 1, cells.end());
}

// ---- Headless Chromium.

std::string Chromium() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(candidate)) return candidate;
  return "";
}

struct LoadedPage {
  std::string dom;                   // the document after its scripts ran (--dump-dom)
  std::vector<std::string> console;  // the page's console messages and uncaught errors
  std::string log;                   // everything Chromium said on stderr
};

// Loads a local page in headless Chromium, offline, with a fresh profile. Chromium logs each
// console message (and each uncaught exception) of the page as an "INFO:CONSOLE" line.
LoadedPage LoadInChromium(const std::string& file, const std::string& fragment,
                          const std::string& scratch) {
  const std::string chromium = Chromium();
  if (chromium.empty())
    FAIL(
        "chromium is not installed: run scripts/setup.sh (this test loads summary.html in "
        "headless Chromium)");
  const std::string profile = e2e::FreshDirectory(scratch);
  pecan::workflow::ChildSpec browser;
  browser.argv = {chromium,
                  "--headless",
                  "--no-sandbox",  // we may run as root
                  "--disable-gpu",
                  "--disable-quic",
                  "--no-first-run",
                  "--disable-background-networking",
                  "--disable-component-update",
                  "--disable-sync",
                  "--user-data-dir=" + profile + "/profile",
                  "--window-size=1366,768",  // the laptop screen the layout must fit
                  "--enable-logging=stderr",
                  "--v=0",
                  "--dump-dom",
                  "file://" + fs::absolute(file).string() + fragment};
  browser.stdout_path = profile + "/dom.html";
  browser.stderr_path = profile + "/chromium.log";
  browser.timeout_seconds = 120;
  pecan::workflow::ChildResult result = pecan::workflow::RunChild(browser);
  LoadedPage page;
  page.dom = e2e::ReadText(profile + "/dom.html");
  page.log = e2e::ReadText(profile + "/chromium.log");
  INFO("chromium's stderr:\n" << page.log);
  REQUIRE_FALSE(result.timed_out);
  REQUIRE(result.exited);
  REQUIRE(result.exit_status == 0);
  REQUIRE(page.dom.find("</html>") != std::string::npos);
  std::istringstream lines(page.log);
  for (std::string line; std::getline(lines, line);)
    if (line.find(":CONSOLE") != std::string::npos) page.console.push_back(line);
  return page;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

}  // namespace

TEST_CASE("pecan triage merges 50 traces, survives a damaged one, and its JSON, HTML agree",
          "[e2e][triage]") {
  const Corpus corpus = RecordCorpus("triage-corpus",
                                     {"pecan_figure1", "lost_update", "drfinder_hidden_race",
                                      "openjms_init_race", "racefuzzer_example", "correct_condvar"},
                                     8, true);
  REQUIRE(corpus.traces.size() == 48);
  std::string out = e2e::FreshDirectory("triage-out");
  e2e::PecanRun run =
      e2e::RunPecan({"triage", corpus.dir, "-o", out, "--jobs", "2"}, out + "/../triage.log");
  INFO("pecan triage output:\n" << run.output);
  REQUIRE(run.result.exited);
  CHECK(run.result.exit_status == 0);
  CHECK(run.output.find('\r') == std::string::npos);  // no progress line into a log file
  nlohmann::json summary = e2e::ReadJson(out + "/summary.json");

  // Every input is accounted for; the damaged one is named and skipped, the truncated analyzed.
  const auto& traces = summary["traces"];
  CHECK(traces.size() == 50);
  CHECK(summary["counts"]["traces"] == 50);
  CHECK(summary["counts"]["damaged"] == 1);
  CHECK(summary["counts"]["truncated"] == 1);
  for (const auto& trace : traces) {
    INFO("trace " << trace.dump());
    if (trace["path"] == corpus.corrupted) {
      CHECK(trace["status"] == "damaged");
      CHECK(trace.value("error", "").find("corrupted.pecan") != std::string::npos);
      CHECK(trace["findings"] == 0);
    } else if (trace["path"] == corpus.truncated) {
      CHECK(trace["status"] == "truncated");
      CHECK(trace["events"].get<int>() > 0);
      CHECK_FALSE(trace["warnings"].empty());
    } else {
      CHECK(trace["status"] == "ok");
    }
  }
  CHECK(run.output.find("damaged: " + corpus.corrupted) != std::string::npos);

  // The oracle: each trace analyzed on its own by `pecan analyze`, its findings keyed by
  // pattern, variant and the events' kinds and source lines.
  std::vector<std::string> analyzed = corpus.traces;
  analyzed.push_back(corpus.truncated);
  std::vector<nlohmann::json> reports(analyzed.size());
  pecan::workflow::RunJobs(analyzed.size(), 2, [&](size_t i) {
    std::string report = analyzed[i] + ".report.json";
    e2e::RunPecan({"analyze", "--format", "json", "-o", report, analyzed[i]}, report + ".log");
    reports[i] = e2e::ReadJson(report);
  });
  std::map<std::string, std::set<std::string>> oracle;
  size_t per_trace_findings = 0;
  for (size_t i = 0; i < analyzed.size(); i++) {
    for (const auto& finding : reports[i]["findings"]) {
      oracle[ReportKey(finding)].insert(analyzed[i]);
      per_trace_findings++;
    }
  }
  for (const auto& trace : traces)
    for (size_t i = 0; i < analyzed.size(); i++)
      if (trace["path"] == analyzed[i]) CHECK(trace["findings"] == reports[i]["findings"].size());

  const auto& findings = summary["findings"];
  REQUIRE_FALSE(findings.empty());
  CHECK(findings.size() == oracle.size());
  CHECK(summary["counts"]["findings"] == findings.size());
  size_t merged_occurrences = 0;
  std::set<std::string> ids;
  for (const auto& finding : findings) {
    std::string key = ReportKey(finding);
    INFO("merged finding " << key);
    REQUIRE(oracle.count(key) == 1);
    std::set<std::string> shown(finding["traces"].begin(), finding["traces"].end());
    CHECK(shown == oracle[key]);
    CHECK(finding["trace_count"] == shown.size());
    CHECK(shown.count(corpus.corrupted) == 0);
    merged_occurrences += shown.size();
    CHECK(ids.insert(finding["id"].get<std::string>()).second);
    CHECK(finding["verdict"].is_null());
    if (finding["clip"].is_object()) {
      CHECK(fs::exists(out + "/" + finding["clip"]["path"].get<std::string>()));
      CHECK(shown.count(finding["clip"]["trace"].get<std::string>()) == 1);
    } else {
      CHECK_FALSE(finding.value("clip_error", "").empty());
    }
  }
  CHECK(merged_occurrences == per_trace_findings);
  // Runs of one program share their bugs: every program with a bug shows it in all 8 runs.
  CHECK(std::any_of(findings.begin(), findings.end(),
                    [](const nlohmann::json& f) { return f["trace_count"] >= 8; }));
  // The correct program contributes nothing.
  for (const auto& finding : findings)
    for (const auto& trace : finding["traces"])
      CHECK(trace.get<std::string>().find("correct_condvar") == std::string::npos);

  // Bugs: every finding in exactly one, and names it.
  const auto& bugs = summary["bugs"];
  CHECK(summary["counts"]["bugs"] == bugs.size());
  CHECK(bugs.size() < findings.size());  // runs of lost_update show one bug in three variants
  std::map<std::string, nlohmann::json> by_finding;
  for (const auto& finding : findings) by_finding[finding["id"].get<std::string>()] = finding;
  std::map<std::string, int> placed;
  for (const auto& bug : bugs) {
    CHECK(bug["evidence"] == "predicted");  // nothing replayed
    for (const auto& id : bug["findings"]) {
      placed[id.get<std::string>()]++;
      CHECK(by_finding.at(id.get<std::string>())["bug"] == bug["id"]);
    }
  }
  CHECK(placed.size() == findings.size());
  for (const auto& [id, count] : placed) CHECK(count == 1);

  // The HTML table as written: one row per bug, in the JSON's order, showing its fields (the
  // working directory is the build tree, so source paths are shown whole).
  std::string html = e2e::ReadText(out + "/summary.html");
  std::vector<FindingRow> rows = FindingRows(html);
  REQUIRE(rows.size() == bugs.size());
  for (size_t i = 0; i < rows.size(); i++) {
    INFO("row " << i + 1 << " vs " << bugs[i].dump());
    CHECK(rows[i].id == bugs[i]["id"]);
    REQUIRE(rows[i].cells.size() == 6);
    CHECK(rows[i].cells[0] == std::to_string(i + 1));
    CHECK(WithoutFirst(rows[i].cells) == ExpectedCells(bugs[i], by_finding));
  }
  // Self-contained: nothing to fetch.
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  // Two swimlane pictures per finding with a clip.
  size_t with_clip = static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(),
                    [](const nlohmann::json& f) { return f["clip"].is_object(); }));
  size_t svgs = 0;
  for (size_t at = html.find("<svg "); at != std::string::npos; at = html.find("<svg ", at + 1))
    svgs++;
  CHECK(svgs == 2 * with_clip);  // the window around the anomaly, and the whole clip folded

  // SARIF: one result per finding, the variants of a bug sharing its fingerprint.
  nlohmann::json sarif = e2e::ReadJson(out + "/summary.sarif");
  CHECK(sarif["version"] == "2.1.0");
  CHECK(sarif["runs"][0]["results"].size() == findings.size());
  for (const auto& result : sarif["runs"][0]["results"]) {
    const std::string id = result["partialFingerprints"]["pecanFinding/v1"];
    CHECK(result["partialFingerprints"]["pecanBug/v1"] == by_finding.at(id)["bug"]);
  }

  // First make sure the browser check can fail: a page with a script error that removes a row
  // must show a console error and one row fewer.
  {
    const std::string broken = e2e::FreshDirectory("triage-broken-page") + "/broken.html";
    std::ofstream(broken)
        << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>broken</title></head><body>"
           "<table id=\"bugs\"><tbody><tr class=\"bug\" data-id=\"a\"><td>1</td></tr>"
           "<tr class=\"bug\" data-id=\"b\"><td>2</td></tr></tbody></table><script>"
           "document.querySelector('tr.bug').remove(); pecanNoSuchFunction();</script>"
           "</body></html>\n";
    LoadedPage page = LoadInChromium(broken, "", "triage-chromium-broken");
    INFO("chromium's stderr:\n" << page.log);
    CHECK(FindingRows(page.dom).size() == 1);
    REQUIRE_FALSE(page.console.empty());
    CHECK(Joined(page.console).find("pecanNoSuchFunction") != std::string::npos);
  }

  // Headless Chromium: the page loads without console messages, shows one row per bug, and its
  // script sorts the table (by the "traces" column, most first, via #sort=5-desc).
  LoadedPage page = LoadInChromium(out + "/summary.html", "#sort=5-desc", "triage-chromium");
  INFO("console:\n" << Joined(page.console));
  CHECK(page.console.empty());
  std::vector<FindingRow> shown = FindingRows(page.dom);
  CHECK(shown.size() == bugs.size());
  std::map<std::string, const nlohmann::json*> by_id;
  for (const auto& bug : bugs) by_id[bug["id"].get<std::string>()] = &bug;
  std::vector<int> trace_counts;
  for (const auto& row : shown) {
    INFO("rendered row " << row.id);
    REQUIRE(by_id.count(row.id) == 1);
    CHECK(WithoutFirst(row.cells) == ExpectedCells(*by_id[row.id], by_finding));
    by_id.erase(row.id);  // each bug once
    trace_counts.push_back(std::stoi(row.cells.at(5)));
  }
  CHECK(by_id.empty());
  CHECK(std::is_sorted(trace_counts.rbegin(), trace_counts.rend()));
  CHECK(page.dom.find("class=\"sorted-desc\"") != std::string::npos);
}

TEST_CASE("pecan triage --replay runs the program after --, and survives a replay that fails",
          "[e2e][triage]") {
  const Corpus corpus =
      RecordCorpus("triage-replay-corpus", {"lost_update", "pecan_figure1"}, 2, false);
  REQUIRE(corpus.traces.size() == 4);
  // A stand-in named like the recorded program but not built with pecan: `pecan replay` refuses
  // to run it, so every replay of a lost_update clip fails, whatever state the replayer is in.
  const std::string dir = e2e::FreshDirectory("triage-replay");
  fs::create_directories(dir + "/fake");
  const std::string fake = dir + "/fake/lost_update";
  fs::copy_file("/bin/true", fake);
  const std::string out = dir + "/out";
  // Options between the traces, and words after -- that look like triage's own options.
  e2e::PecanRun run = e2e::RunPecan(
      {"triage", corpus.traces[0], "-o", out, corpus.traces[1], corpus.traces[2], corpus.traces[3],
       "--replay", "--timeout", "20", "--", fake, "-o", "elsewhere", "--jobs"},
      dir + "/triage.log");
  INFO("pecan triage output:\n" << run.output);
  REQUIRE(run.result.exited);
  CHECK(run.result.exit_status == 2);  // replays that could not run are errors
  nlohmann::json summary = e2e::ReadJson(out + "/summary.json");
  CHECK(summary["traces"].size() == 4);
  CHECK(summary["command"] == std::vector<std::string>{fake, "-o", "elsewhere", "--jobs"});
  CHECK_FALSE(fs::exists("elsewhere"));
  size_t failed = 0, other = 0;
  for (const auto& finding : summary["findings"]) {
    INFO(finding.dump());
    if (!finding["clip"].is_object()) continue;
    const bool ours =
        finding["clip"]["trace"].get<std::string>().find("lost_update") != std::string::npos;
    if (ours) {
      REQUIRE(finding["verdict"].is_object());
      CHECK(finding["verdict"]["outcome"] == "error");
      CHECK(finding["verdict"]["reason"].get<std::string>().find("libpecan_rt") !=
            std::string::npos);
      CHECK(finding.value("replay_command", "").find("-- " + fake + " -o elsewhere --jobs") !=
            std::string::npos);
      failed++;
    } else {  // pecan_figure1's clips are not replayed with lost_update
      CHECK(finding["verdict"].is_null());
      other++;
    }
  }
  CHECK(failed > 0);
  CHECK(other > 0);
  CHECK(summary["counts"]["replay_errors"] == failed);
  CHECK(summary["counts"]["not_replayed_other_program"] == other);
  CHECK(run.output.find("replay failed: ") != std::string::npos);
  CHECK(e2e::ReadText(out + "/summary.html").find("class=\"verdict-error\">error</span>") !=
        std::string::npos);
}

TEST_CASE("pecan triage rejects bad arguments with one line and exit status 2", "[e2e][triage]") {
  const Corpus corpus = RecordCorpus("triage-args-corpus", {"lost_update"}, 1, false);
  REQUIRE(corpus.traces.size() == 1);
  const std::string dir = e2e::FreshDirectory("triage-args");
  fs::create_directories(dir + "/empty");
  const std::string& trace = corpus.traces[0];
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"triage", dir + "/missing.pecan"}, "no such file or directory"},
      {{"triage", dir + "/empty"}, "no .pecan files"},
      {{"triage", trace, "--replay"}, "--replay needs the program after --"},
      {{"triage", trace, "--replay", "--"}, "--replay needs the program after --"},
      {{"triage", trace, "--", e2e::ExampleBinary("lost_update")}, "only used with --replay"},
      {{"triage", trace, "--replay", "--", dir + "/no-such-program"}, "no such executable file"},
      {{"triage", trace, "-o", trace + "/out"}, "cannot create the output directory"},
      {{"triage", trace, "--patterns", "race,nosuch"}, "'nosuch'"},
  };
  for (const auto& [arguments, message] : cases) {
    e2e::PecanRun run = e2e::RunPecan(arguments, dir + "/run.log");
    INFO("pecan " << arguments[1] << " ... output:\n" << run.output);
    CHECK(run.result.exited);
    CHECK(run.result.exit_status == 2);
    CHECK(run.output.rfind("pecan: error: triage: ", 0) == 0);
    CHECK(run.output.find(message) != std::string::npos);
    CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
  }
  // Every trace damaged: the summary still says so, and the exit status is 2.
  const std::string junk = dir + "/junk.pecan";
  std::ofstream(junk) << "not a trace\n";
  e2e::PecanRun run = e2e::RunPecan({"triage", junk, "-o", dir + "/out"}, dir + "/run.log");
  INFO(run.output);
  CHECK(run.result.exit_status == 2);
  CHECK(run.output.find("every trace is damaged") != std::string::npos);
  CHECK(e2e::ReadJson(dir + "/out/summary.json")["counts"]["damaged"] == 1);

  e2e::PecanRun help = e2e::RunPecan({"triage", "--help"}, dir + "/help.log");
  CHECK(help.result.exit_status == 0);
  CHECK(help.output.find("Usage: pecan triage [OPTIONS] (TRACE | DIR)... [--replay -- PROGRAM") !=
        std::string::npos);
}

TEST_CASE("pecan triage shows its progress on a terminal, warnings on lines of their own",
          "[e2e][triage]") {
  // Two traces, a truncated one (its reader warns while the bar is shown) and a corrupted one.
  const Corpus corpus = RecordCorpus("triage-tty-corpus", {"lost_update"}, 2, true);
  REQUIRE(corpus.traces.size() == 2);
  const std::string dir = e2e::FreshDirectory("triage-tty");
  // script(1) (util-linux) runs the command on a pseudo-terminal and copies what it shows.
  pecan::workflow::ChildSpec spec;
  spec.argv = {"script", "-qec",
               std::string(kPecanBinary) + " triage " + corpus.dir + " -o " + dir + "/out",
               "/dev/null"};
  spec.stdout_path = dir + "/terminal.log";
  spec.stderr_path = dir + "/terminal.log";
  spec.timeout_seconds = 120;
  pecan::workflow::ChildResult result = pecan::workflow::RunChild(spec);
  std::string shown = e2e::ReadText(dir + "/terminal.log");
  INFO("terminal:\n" << shown);
  CHECK(result.exited);
  CHECK(result.exit_status == 0);
  CHECK(shown.find(
            "\rpecan triage: analyzing 4 traces [..............................]   0% (0/4)") !=
        std::string::npos);
  CHECK(shown.find(
            "\rpecan triage: analyzing 4 traces [##############################] 100% (4/4)") !=
        std::string::npos);
  CHECK(shown.find("pecan triage: 4 traces") != std::string::npos);
  // The warning starts at the beginning of a cleared line and ends it; the bar comes back.
  const size_t warning = shown.find("pecan: warning: ");
  REQUIRE(warning != std::string::npos);
  CHECK(shown.find("truncated", warning) < shown.find('\n', warning));
  for (size_t at = warning; at != std::string::npos; at = shown.find("pecan: warning: ", at + 1)) {
    INFO("warning at byte " << at);
    CHECK((shown[at - 1] == '\r' || shown[at - 1] == '\n'));
    const size_t end = shown.find('\n', at);
    CHECK(shown.find("pecan triage: analyzing", at) > end);
  }
  CHECK(shown.find("\rpecan triage: analyzing", shown.find('\n', warning)) != std::string::npos);
}

TEST_CASE(
    "pecan triage names findings as pecan hunt does and writes SARIF paths relative to "
    "the source root",
    "[e2e][triage]") {
  const std::string dir = e2e::FreshDirectory("triage-ids");
  const std::string program = e2e::ExampleBinary("pecan_figure1");
  e2e::PecanRun hunt = e2e::RunPecan({"hunt", "-o", dir + "/hunt", "--", program}, dir + "/h.log");
  INFO("hunt:\n" << hunt.output);
  const nlohmann::json verdicts = e2e::ReadJson(dir + "/hunt/verdicts.json");
  std::set<std::string> hunt_ids;
  for (const auto& finding : verdicts["findings"]) hunt_ids.insert(finding["id"]);
  REQUIRE(hunt_ids.size() >= 3);

  // From the source tree, with the default source root (the working directory).
  const std::string trace = dir + "/hunt/trace.pecan";
  e2e::PecanRun run =
      e2e::RunPecanIn(e2e::SourceTree(), {"triage", trace, "-o", dir + "/triage"}, dir + "/t.log");
  INFO("triage:\n" << run.output);
  REQUIRE(run.result.exit_status == 0);
  const nlohmann::json summary = e2e::ReadJson(dir + "/triage/summary.json");
  std::set<std::string> triage_ids;
  for (const auto& finding : summary["findings"]) {
    triage_ids.insert(finding["id"]);
    CHECK(fs::exists(dir + "/triage/clips/" + finding["id"].get<std::string>() + ".clip"));
  }
  CHECK(triage_ids == hunt_ids);
  nlohmann::json sarif = e2e::ReadJson(dir + "/triage/summary.sarif");
  CHECK(sarif["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] ==
        "file://" + e2e::SourceTree() + "/");
  REQUIRE(sarif["runs"][0]["results"].size() == hunt_ids.size());
  for (const auto& result : sarif["runs"][0]["results"]) {
    const auto& location = result["locations"][0]["physicalLocation"]["artifactLocation"];
    CHECK(location["uri"] == "examples/pecan_figure1.c");
    CHECK(location["uriBaseId"] == "SRCROOT");
  }

  // --source-root: relative to the examples instead.
  run =
      e2e::RunPecan({"triage", trace, "-o", dir + "/triage2", "--source-root", kExamplesSourceDir},
                    dir + "/t2.log");
  REQUIRE(run.result.exit_status == 0);
  sarif = e2e::ReadJson(dir + "/triage2/summary.sarif");
  CHECK(sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] ==
        nlohmann::json{{"uri", "pecan_figure1.c"}, {"uriBaseId", "SRCROOT"}});
}

namespace {

// A summary as a whole triage and a merge must both write it: everything but the time each
// trace's analysis and each replay took, and the output directory's name in paths.
nlohmann::json Comparable(nlohmann::json summary, const std::string& dir) {
  for (auto& trace : summary["traces"]) trace.erase("seconds");
  for (auto& finding : summary["findings"]) {
    if (finding["verdict"].is_object()) {
      finding["verdict"].erase("seconds");
      if (finding["verdict"].contains("failure_clip"))
        finding["verdict"]["failure_clip"] =
            fs::path(finding["verdict"]["failure_clip"].get<std::string>()).filename().string();
    }
    if (finding.contains("replay_command")) {
      std::string command = finding["replay_command"];
      for (size_t at = command.find(dir + "/"); at != std::string::npos;
           at = command.find(dir + "/"))
        command.replace(at, dir.size() + 1, "");
      finding["replay_command"] = command;
    }
  }
  return summary;
}

// Every clip file of `dir`/clips (or failures), by name, with its bytes.
std::map<std::string, std::string> FilesIn(const std::string& dir) {
  std::map<std::string, std::string> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir))
    files[entry.path().filename().string()] = e2e::ReadText(entry.path().string());
  return files;
}

void CheckSameTriage(const std::string& whole, const std::string& merged) {
  INFO("whole " << whole << ", merged " << merged);
  CHECK(Comparable(e2e::ReadJson(whole + "/summary.json"), whole) ==
        Comparable(e2e::ReadJson(merged + "/summary.json"), merged));
  CHECK(FilesIn(whole + "/clips") == FilesIn(merged + "/clips"));
  CHECK(e2e::ReadText(whole + "/summary.sarif") == e2e::ReadText(merged + "/summary.sarif"));
}

}  // namespace

TEST_CASE("pecan triage --shard K/N parts merge into exactly what one triage writes",
          "[e2e][triage][shard]") {
  const Corpus corpus = RecordCorpus(
      "triage-shard-corpus",
      {"pecan_figure1", "lost_update", "openjms_init_race", "correct_condvar"}, 4, true);
  REQUIRE(corpus.traces.size() == 16);
  const std::string dir = e2e::FreshDirectory("triage-shard");
  e2e::PecanRun whole =
      e2e::RunPecan({"triage", corpus.dir, "-o", dir + "/whole"}, dir + "/whole.log");
  INFO("whole triage:\n" << whole.output);
  REQUIRE(whole.result.exit_status == 0);
  const nlohmann::json all = e2e::ReadJson(dir + "/whole/summary.json");
  REQUIRE(all["counts"]["traces"] == 18);
  REQUIRE(all["counts"]["findings"].get<int>() >= 5);

  // Three shards, as three machines would run them: each trace in exactly one.
  std::map<std::string, int> owners;
  fs::create_directories(dir + "/parts");
  for (int k = 0; k < 3; k++) {
    const std::string part = dir + "/parts/" + std::to_string(k);
    e2e::PecanRun run = e2e::RunPecan(
        {"triage", corpus.dir, "--shard", std::to_string(k) + "/3", "-o", part}, part + ".log");
    INFO("shard " << k << ":\n" << run.output);
    REQUIRE(run.result.exit_status == 0);
    const nlohmann::json summary = e2e::ReadJson(part + "/summary.json");
    CHECK(summary["shard"] == std::to_string(k) + "/3");
    CHECK(summary["counts"]["inputs"] == 18);
    CHECK(summary["counts"]["traces"].get<int>() >= 4);  // balanced: 6 each, give or take
    for (const auto& trace : summary["traces"]) owners[trace["path"]]++;
    CHECK(run.output.find("shard " + std::to_string(k) + "/3, ") != std::string::npos);
  }
  CHECK(owners.size() == 18);
  for (const auto& [path, count] : owners) CHECK(count == 1);

  // Merged in one go, reversed, and chained through a merge of two: the same as the whole.
  const std::string parts = dir + "/parts/";
  for (const auto& order : std::vector<std::vector<std::string>>{
           {parts + "0", parts + "1", parts + "2"}, {parts + "2", parts + "1", parts + "0"}}) {
    std::vector<std::string> arguments = {"triage", "merge", "-o", dir + "/merged"};
    arguments.insert(arguments.end(), order.begin(), order.end());
    e2e::PecanRun merge = e2e::RunPecan(arguments, dir + "/merge.log");
    INFO("merge:\n" << merge.output);
    CHECK(merge.result.exit_status == 0);
    CHECK(merge.output.find("warning") == std::string::npos);
    CheckSameTriage(dir + "/whole", dir + "/merged");
    CHECK(e2e::ReadText(dir + "/whole/summary.html") ==
          e2e::ReadText(dir + "/merged/summary.html"));
  }
  e2e::PecanRun first = e2e::RunPecan(
      {"triage", "merge", "-o", dir + "/m01", parts + "0", parts + "1"}, dir + "/m01.log");
  INFO("merge of two:\n" << first.output);
  CHECK(first.result.exit_status == 0);
  // Two of three parts: the traces of the third are counted as missing, with a warning.
  CHECK(first.output.find("pecan: warning: triage merge: ") != std::string::npos);
  const nlohmann::json partial = e2e::ReadJson(dir + "/m01/summary.json");
  CHECK(partial["counts"]["missing"].get<int>() + partial["counts"]["traces"].get<int>() == 18);
  e2e::PecanRun chained = e2e::RunPecan(
      {"triage", "merge", "-o", dir + "/chained", dir + "/m01", parts + "2", parts + "0"},
      dir + "/chained.log");
  INFO("chained merge:\n" << chained.output);
  CHECK(chained.result.exit_status == 0);
  CheckSameTriage(dir + "/whole", dir + "/chained");

  // Parts that do not belong together, and other mistakes: one line each, exit status 2.
  e2e::PecanRun other = e2e::RunPecan(
      {"triage", corpus.traces[0], "--shard", "0/1", "-o", dir + "/other"}, dir + "/other.log");
  REQUIRE(other.result.exit_status == 0);
  fs::create_directories(dir + "/not-a-triage");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"triage", "merge", "-o", dir + "/bad", parts + "0", dir + "/other"},
       "is not part of the same triage"},
      {{"triage", "merge", "-o", dir + "/bad", dir + "/not-a-triage"}, "no triage-state.json"},
      {{"triage", "merge", "-o", parts + "0", parts + "0", parts + "1"}, "is also an input"},
      {{"triage", corpus.dir, "--shard", "3/3"}, "numbered from 0"},
      {{"triage", corpus.dir, "--shard", "1-3"}, "expected K/N"},
      {{"triage", "replay", parts + "0", "-o", dir + "/bad"}, "needs the program after --"},
  };
  for (const auto& [arguments, message] : cases) {
    e2e::PecanRun run = e2e::RunPecan(arguments, dir + "/bad.log");
    INFO("pecan " << arguments[1] << " ... output:\n" << run.output);
    CHECK(run.result.exit_status == 2);
    CHECK(run.output.rfind("pecan: error: triage", 0) == 0);
    CHECK(run.output.find(message) != std::string::npos);
    CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
  }
  e2e::PecanRun help = e2e::RunPecan({"triage", "merge", "--help"}, dir + "/help.log");
  CHECK(help.result.exit_status == 0);
  CHECK(help.output.find("Usage: pecan triage merge [OPTIONS] DIR...") != std::string::npos);
}

TEST_CASE("pecan triage replays split into shards merge into what one triage --replay writes",
          "[e2e][triage][shard]") {
  const Corpus corpus =
      RecordCorpus("triage-shard-replay-corpus", {"lost_update", "pecan_figure1"}, 3, false);
  REQUIRE(corpus.traces.size() == 6);
  const std::string dir = e2e::FreshDirectory("triage-shard-replay");
  const std::string program = e2e::ExampleBinary("lost_update");
  e2e::PecanRun whole = e2e::RunPecan(
      {"triage", corpus.dir, "-o", dir + "/whole", "--replay", "--", program}, dir + "/whole.log");
  INFO("whole triage:\n" << whole.output);
  CHECK(whole.result.exit_status == 1);  // lost_update's race fails its assertion
  const nlohmann::json all = e2e::ReadJson(dir + "/whole/summary.json");
  REQUIRE(all["counts"]["confirmed"].get<int>() >= 1);

  // Analysis in two shards, merged; then the replays in two shards, merged again.
  for (int k = 0; k < 2; k++)
    REQUIRE(e2e::RunPecan({"triage", corpus.dir, "--shard", std::to_string(k) + "/2", "-o",
                           dir + "/a" + std::to_string(k)},
                          dir + "/a.log")
                .result.exit_status == 0);
  REQUIRE(e2e::RunPecan({"triage", "merge", "-o", dir + "/analyzed", dir + "/a0", dir + "/a1"},
                        dir + "/analyzed.log")
              .result.exit_status == 0);
  size_t replayed = 0;
  for (int k = 0; k < 2; k++) {
    const std::string part = dir + "/r" + std::to_string(k);
    e2e::PecanRun run = e2e::RunPecan({"triage", "replay", "--shard", std::to_string(k) + "/2",
                                       dir + "/analyzed", "-o", part, "--", program},
                                      part + ".log");
    INFO("replay shard " << k << ":\n" << run.output);
    CHECK(run.result.exit_status == 0);  // a part's verdicts count when merged
    const nlohmann::json summary = e2e::ReadJson(part + "/summary.json");
    for (const auto& finding : summary["findings"]) replayed += finding["verdict"].is_object();
  }
  CHECK(replayed ==
        all["findings"].size() - all["counts"]["not_replayed_other_program"].get<size_t>());
  e2e::PecanRun merge = e2e::RunPecan(
      {"triage", "merge", "-o", dir + "/merged", dir + "/r1", dir + "/r0"}, dir + "/merge.log");
  INFO("merge:\n" << merge.output);
  CHECK(merge.result.exit_status == 1);
  CheckSameTriage(dir + "/whole", dir + "/merged");
  CHECK(FilesIn(dir + "/whole/failures").size() == FilesIn(dir + "/merged/failures").size());
  CHECK(merge.output.find("reproduce: ") != std::string::npos);
}

namespace {

// A single-node Slurm started from Debian's packages for one test (tests/slurm/), stopped at the
// end whatever happens.
class SingleNodeSlurm {
 public:
  explicit SingleNodeSlurm(const std::string& state) : state_(state) {
    pecan::workflow::ChildSpec start;
    start.argv = {"bash", e2e::SourceTree() + "/tests/slurm/single_node_slurm.sh", "start", state};
    start.stdout_path = start.stderr_path = state + ".start.log";
    start.timeout_seconds = 120;
    const pecan::workflow::ChildResult result = pecan::workflow::RunChild(start);
    log_ = e2e::ReadText(state + ".start.log");
    started_ = result.exited && result.exit_status == 0;
  }
  ~SingleNodeSlurm() {
    pecan::workflow::ChildSpec stop;
    stop.argv = {"bash", e2e::SourceTree() + "/tests/slurm/single_node_slurm.sh", "stop", state_};
    stop.stdout_path = stop.stderr_path = state_ + ".stop.log";
    stop.timeout_seconds = 60;
    pecan::workflow::RunChild(stop);
    std::error_code ignored;  // the daemons are gone: their files in /tmp go too
    fs::remove_all(state_, ignored);
    for (const char* log : {".start.log", ".stop.log", ".client.log"})
      fs::remove(state_ + log, ignored);
  }
  bool started() const { return started_; }
  const std::string& log() const { return log_; }
  std::map<std::string, std::string> environment() const {
    return {{"SLURM_CONF", state_ + "/slurm.conf"}, {"PECAN", kPecanBinary}};
  }

  // Runs a Slurm client command; its output (stdout and stderr).
  std::string Run(const std::vector<std::string>& argv) const {
    pecan::workflow::ChildSpec spec;
    spec.argv = argv;
    spec.environment = environment();
    spec.stdout_path = spec.stderr_path = state_ + ".client.log";
    spec.timeout_seconds = 60;
    pecan::workflow::RunChild(spec);
    return e2e::ReadText(state_ + ".client.log");
  }

 private:
  std::string state_;
  std::string log_;
  bool started_ = false;
};

bool OnPath(const std::string& command) {
  return std::system(("command -v " + command + " >/dev/null 2>&1").c_str()) == 0;
}

// The value of `field` (e.g. "JobState") in `scontrol -o show job` output.
std::string JobField(const std::string& line, const std::string& field) {
  const size_t at = line.find(" " + field + "=");
  if (at == std::string::npos) return "";
  const size_t start = at + field.size() + 2;
  return line.substr(start, line.find(' ', start) - start);
}

}  // namespace

TEST_CASE("pecan triage shards run as a Slurm job array and its dependent merge equals one triage",
          "[e2e][triage][slurm]") {
  if (::geteuid() != 0) {
    WARN(
        "pecan-test-skipped: starting a single-node Slurm needs root (munged, slurmctld and "
        "slurmd are started by this test); run the suite as root to include it");
    return;
  }
  for (const char* command : {"sbatch", "squeue", "scontrol", "slurmctld", "slurmd", "munged"})
    if (!OnPath(command))
      FAIL(command << " is not installed: run scripts/setup.sh (it installs slurmctld, slurmd, "
                      "slurm-client and munge)");
  const Corpus corpus = RecordCorpus(
      "triage-slurm-corpus",
      {"pecan_figure1", "lost_update", "openjms_init_race", "correct_condvar"}, 10, false);
  REQUIRE(corpus.traces.size() == 40);
  const std::string dir = e2e::FreshDirectory("triage-slurm");
  e2e::PecanRun whole =
      e2e::RunPecan({"triage", corpus.dir, "-o", dir + "/whole"}, dir + "/whole.log");
  REQUIRE(whole.result.exit_status == 0);

  // Short: the munge socket's path must fit a Unix socket address.
  const std::string state = "/tmp/pecan-slurm-" + std::to_string(::getpid());
  SingleNodeSlurm slurm(state);
  INFO("single_node_slurm.sh start:\n" << slurm.log());
  REQUIRE(slurm.started());

  // The shipped script: a 4-task array, then the merge with --dependency=afterok.
  pecan::workflow::ChildSpec submit;
  submit.argv = {"bash",    e2e::SourceTree() + "/cluster/slurm/pecan-triage-submit.sh",
                 "-n",      "4",
                 "-o",      dir + "/out",
                 corpus.dir};
  submit.environment = slurm.environment();
  submit.stdout_path = submit.stderr_path = dir + "/submit.log";
  submit.timeout_seconds = 60;
  const pecan::workflow::ChildResult submitted = pecan::workflow::RunChild(submit);
  const std::string submit_output = e2e::ReadText(dir + "/submit.log");
  INFO("pecan-triage-submit.sh:\n" << submit_output);
  REQUIRE(submitted.exit_status == 0);
  const size_t array_at = submit_output.find("job array ");
  const size_t merge_at = submit_output.find("merge: job ");
  REQUIRE(array_at != std::string::npos);
  REQUIRE(merge_at != std::string::npos);
  auto word_at = [&](size_t at) {
    return submit_output.substr(at, submit_output.find(' ', at) - at);
  };
  const std::string array_job = word_at(array_at + 10);
  const std::string merge_job = word_at(merge_at + 11);

  // Wait for the merge job to end (Slurm keeps finished jobs for MinJobAge, 300 s).
  std::string merge_state;
  for (int tick = 0; tick < 600; tick++) {
    merge_state = JobField(slurm.Run({"scontrol", "-o", "show", "job", merge_job}), "JobState");
    if (merge_state != "PENDING" && merge_state != "RUNNING" && merge_state != "CONFIGURING" &&
        merge_state != "COMPLETING")
      break;
    ::usleep(250 * 1000);
  }
  const std::string array_jobs = slurm.Run({"scontrol", "-o", "show", "job", array_job});
  INFO("array:\n" << array_jobs << "merge log:\n" << e2e::ReadText(dir + "/out/logs/merge.log"));
  CHECK(merge_state == "COMPLETED");
  // Four tasks, each COMPLETED, each with its index; the merge started after all of them ended.
  std::istringstream lines(array_jobs);
  std::set<std::string> tasks;
  std::string last_task_end;  // ISO times: they sort as text
  for (std::string line; std::getline(lines, line);) {
    if (JobField(line, "ArrayTaskId").empty()) continue;
    CHECK(JobField(line, "JobState") == "COMPLETED");
    tasks.insert(JobField(line, "ArrayTaskId"));
    last_task_end = std::max(last_task_end, JobField(line, "EndTime"));
  }
  CHECK(tasks == std::set<std::string>{"0", "1", "2", "3"});
  const std::string merge_line = slurm.Run({"scontrol", "-o", "show", "job", merge_job});
  CHECK(JobField(merge_line, "StartTime") >= last_task_end);
  for (int k = 0; k < 4; k++) {
    const nlohmann::json part =
        e2e::ReadJson(dir + "/out/parts/" + std::to_string(k) + "/summary.json");
    CHECK(part["shard"] == std::to_string(k) + "/4");
  }
  CheckSameTriage(dir + "/whole", dir + "/out/summary");
}

namespace {

// A copy of `page` whose last script, after the page's own, measures the layout at the window's
// width and writes what it found into <pre id="layout-check">: the viewport's width, the page's
// scroll width, and every element wider than the viewport or reaching past it (with the refuted
// section opened, so its contents are measured too).
std::string WithLayoutCheck(const std::string& page, const std::string& copy) {
  std::string html = e2e::ReadText(page);
  const std::string check = R"js(<script>
(function () {
  var refuted = document.getElementById('refuted');
  if (refuted) refuted.open = true;
  var width = document.documentElement.clientWidth, wide = [];
  document.querySelectorAll('body *').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.right > width + 1 || r.width > width + 1)
      wide.push(e.tagName + (e.id ? '#' + e.id : '') + ' ' + Math.round(r.width));
  });
  var out = document.createElement('pre');
  out.id = 'layout-check';
  out.textContent = 'viewport=' + width + ' scroll=' + document.documentElement.scrollWidth +
      ' wide=' + wide.join(',') + ';';
  document.body.appendChild(out);
})();
</script>)js";
  const size_t end = html.rfind("</body>");
  REQUIRE(end != std::string::npos);
  html.insert(end, check);
  std::ofstream(copy) << html;
  return copy;
}

std::string LayoutField(const std::string& dom, const std::string& name) {
  const size_t check = dom.find("<pre id=\"layout-check\">");
  if (check == std::string::npos) return "?";
  const size_t at = dom.find(name + "=", check);
  if (at == std::string::npos) return "?";
  const size_t start = at + name.size() + 1;
  return dom.substr(start, dom.find_first_of(" ;", start) - start);
}

// Saves what headless Chromium shows of `page` at 1366x768 as a PNG (a test artifact).
void Screenshot(const std::string& page, const std::string& png) {
  const std::string profile = e2e::FreshDirectory("report-screenshot-profile");
  pecan::workflow::ChildSpec browser;
  browser.argv = {Chromium(),
                  "--headless",
                  "--no-sandbox",
                  "--disable-gpu",
                  "--disable-quic",
                  "--no-first-run",
                  "--disable-background-networking",
                  "--disable-component-update",
                  "--disable-sync",
                  "--hide-scrollbars",
                  "--user-data-dir=" + profile + "/profile",
                  "--window-size=1366,768",
                  "--screenshot=" + png,
                  "file://" + fs::absolute(page).string()};
  browser.stdout_path = browser.stderr_path = profile + "/chromium.log";
  browser.timeout_seconds = 120;
  const pecan::workflow::ChildResult result = pecan::workflow::RunChild(browser);
  INFO("chromium:\n" << e2e::ReadText(profile + "/chromium.log"));
  CHECK(result.exit_status == 0);
}

}  // namespace

TEST_CASE("hunt's and triage's pages show one entry per bug, refuted ones apart, and fit 1366 px",
          "[e2e][triage][report]") {
  const std::string dir = e2e::FreshDirectory("report-pages");
  const std::string artifacts = std::string(kScratchDir) + "/artifacts";
  fs::create_directories(artifacts);
  const std::string program = e2e::TestProgram("request_counter");
  e2e::PecanRun hunt =
      e2e::RunPecan({"hunt", "-o", dir + "/hunt", "--no-explore", "--", program}, dir + "/h.log");
  INFO("hunt:\n" << hunt.output);
  REQUIRE(hunt.result.exit_status == 1);  // the counter's lost update fails its assertion
  e2e::PecanRun triage = e2e::RunPecan(
      {"triage", dir + "/hunt/trace.pecan", "-o", dir + "/triage", "--replay", "--", program},
      dir + "/t.log");
  INFO("triage:\n" << triage.output);
  REQUIRE(triage.result.exit_status == 1);
  // The text report shows the code of each bug's locations, its own line marked.
  CHECK(triage.output.find("> 21 |     for (int i = 0; i < requests; i++) hits++;") !=
        std::string::npos);

  struct Page {
    std::string name, html, json;
  };
  for (const Page& page :
       {Page{"hunt", dir + "/hunt/report.html", dir + "/hunt/verdicts.json"},
        Page{"triage", dir + "/triage/summary.html", dir + "/triage/summary.json"}}) {
    INFO("page " << page.name);
    // The JSON: `hits++` is one bug of several variants, the first; some bug was refuted.
    const nlohmann::json json = e2e::ReadJson(page.json);
    const nlohmann::json& bugs = json["bugs"];
    REQUIRE(bugs.size() >= 2);
    size_t hits_bugs = 0, refuted_bugs = 0;
    for (const auto& bug : bugs) {
      const std::string title = bug["title"];
      if (title.find("::hits`") != std::string::npos) {
        hits_bugs++;
        CHECK(bug["findings"].size() >= 3);
        CHECK(bug["evidence"] == "failed");
      }
      refuted_bugs += bug["evidence"] == "refuted";
    }
    CHECK(hits_bugs == 1);
    CHECK(refuted_bugs >= 1);
    // Each access with the calls open at it and where its thread was created.
    for (const auto& finding : json["findings"]) {
      for (const auto& event : finding["events"]) {
        if (event["site"].value("line", 0) != 21) continue;  // hits++
        REQUIRE(event["stack"].size() >= 2);
        CHECK(event["stack"][0]["function"].get<std::string>().find(
                  "RecordIncomingRequestAndUpdateThroughputStatistics") != std::string::npos);
        CHECK(event["stack"][1]["function"] == "HandleConnections");
        CHECK(event["thread_created_at"]["function"] == "main");
      }
    }
    CHECK(bugs[0]["evidence"] == "failed");

    // The page in a browser at 1366 px: one row for the bug, refuted ones in their own section
    // after it, nothing wider than the window, no console message.
    LoadedPage loaded =
        LoadInChromium(WithLayoutCheck(page.html, dir + "/" + page.name + "-check.html"), "",
                       "report-chromium-" + page.name);
    INFO("console:\n" << Joined(loaded.console));
    CHECK(loaded.console.empty());
    size_t rows_for_hits = 0;
    for (const FindingRow& row : FindingRows(loaded.dom))
      rows_for_hits += row.cells.size() > 2 && row.cells[2].find("::hits`") != std::string::npos;
    CHECK(rows_for_hits == 1);
    CHECK(FindingRows(loaded.dom).size() == bugs.size() - refuted_bugs);
    CHECK(FindingRows(loaded.dom, "refuted-bugs").size() == refuted_bugs);
    const size_t section = loaded.dom.find("<details id=\"refuted\"");
    REQUIRE(section != std::string::npos);
    CHECK(loaded.dom.find("data-evidence=\"refuted\"") > section);
    INFO("layout: " << loaded.dom.substr(loaded.dom.find("<pre id=\"layout-check\">")));
    const std::string viewport = LayoutField(loaded.dom, "viewport");
    REQUIRE(viewport != "?");
    CHECK(std::stoi(viewport) >= 1300);
    CHECK(std::stoi(LayoutField(loaded.dom, "scroll")) <= std::stoi(viewport));
    CHECK(LayoutField(loaded.dom, "wide").empty());
    CHECK(loaded.dom.find(" created at ") != std::string::npos);
    // The source around the bug, its line marked.
    CHECK(loaded.dom.find("<mark>21 |     for (int i = 0; i &lt; requests; i++) hits++;") !=
          std::string::npos);
    // Long C++ names are in the page, wrapped rather than cut.
    CHECK(loaded.dom.find("RecordIncomingRequestAndUpdateThroughputStatistics") !=
          std::string::npos);

    const std::string png = artifacts + "/report-" + page.name + ".png";
    fs::remove(png);
    Screenshot(page.html, png);
    CHECK(e2e::ReadText(png).rfind("\x89PNG", 0) == 0);
    CHECK(fs::file_size(png) > 10000);
  }
}

TEST_CASE("pecan hunt shows replays done and confirmations so far on a terminal",
          "[e2e][triage][report]") {
  const std::string dir = e2e::FreshDirectory("hunt-tty");
  pecan::workflow::ChildSpec spec;
  spec.argv = {"script", "-qec",
               std::string(kPecanBinary) + " hunt --no-explore -o " + dir + "/out -- " +
                   e2e::TestProgram("request_counter"),
               "/dev/null"};
  spec.stdout_path = spec.stderr_path = dir + "/terminal.log";
  spec.timeout_seconds = 180;
  const pecan::workflow::ChildResult result = pecan::workflow::RunChild(spec);
  const std::string shown = e2e::ReadText(dir + "/terminal.log");
  INFO("terminal:\n" << shown);
  CHECK(result.exited);
  const nlohmann::json verdicts = e2e::ReadJson(dir + "/out/verdicts.json");
  // One replay per prediction, less the variants on the same sites of a replayed one.
  const size_t clips = verdicts["counts"]["predicted"].get<size_t>() -
                       verdicts["counts"]["variants"].get<size_t>();
  const size_t confirmed = verdicts["counts"]["confirmed"];
  REQUIRE(confirmed >= 1);
  REQUIRE(clips > 1);
  // The bar starts at 0 confirmed and ends with every replay done and every confirmation counted.
  CHECK(shown.find("\rpecan hunt: replaying " + std::to_string(clips) + " predictions [") !=
        std::string::npos);
  CHECK(shown.find("(0/" + std::to_string(clips) + ")") != std::string::npos);
  CHECK(shown.find("(" + std::to_string(clips) + "/" + std::to_string(clips) + "), " +
                   std::to_string(confirmed) + " confirmed") != std::string::npos);
}
