#include "workflow/html_summary.h"

namespace pecan::workflow {

std::string VerdictText(const SummaryVerdict& verdict) {
  if (verdict.outcome.empty()) return "not replayed";
  if (verdict.confirmed())
    return verdict.failure.empty() ? "confirmed" : "confirmed, " + verdict.failure;
  if (verdict.outcome == "exposed") return "failed: " + verdict.failure;
  return verdict.outcome;
}

namespace {

constexpr const char* kStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; overflow-wrap: anywhere; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; } h4 { margin: 0.8em 0 0.3em; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
th.sorted-asc::after { content: " \25B2"; } th.sorted-desc::after { content: " \25BC"; }
table#bugs col.n, table#refuted-bugs col.n { width: 3em; }
table#bugs col.evidence, table#refuted-bugs col.evidence { width: 7.5em; }
table#bugs col.count, table#refuted-bugs col.count { width: 5em; }
td.sites div, td.variants div { font-family: ui-monospace, monospace; font-size: 12px; }
code, pre { overflow-wrap: anywhere; white-space: pre-wrap; }
.evidence-failed, .verdict-hatched { color: #b00020; font-weight: bold; }
.evidence-confirmed { color: #b00020; } .evidence-predicted { color: #8a5a00; }
.evidence-refuted, .verdict-infeasible { color: #555; } .verdict-error { color: #a60; }
.failure { color: #b00020; }
.traces { font-size: 12px; color: #444; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
.variant { border-top: 1px dashed #ddd; margin-top: 8px; }
.card pre { background: #f7f7f7; padding: 6px; }
.source { margin: 4px 0 8px; }
.source .loc { font-family: ui-monospace, monospace; font-size: 12px; color: #333; }
.source pre { margin: 2px 0; font-size: 12px; }
.source mark { background: #ffe8a3; display: inline-block; width: 100%; }
details#refuted { margin-top: 1.5em; } details#refuted > summary { cursor: pointer; font-weight: bold; }
.svgbox { max-width: 100%; }
svg.swimlane { max-width: 100%; height: auto; font: 11px sans-serif; }
svg.swimlane .lane { stroke: #e2e2e2; stroke-width: 1; }
svg.swimlane .lane-name { fill: #333; }
svg.swimlane .run { fill: #7aa6d8; }
svg.swimlane .run.moved { fill: #f5a623; }
svg.swimlane .handoff { stroke: #999; stroke-width: 0.7; }
svg.swimlane .anomaly circle { fill: #d0021b; fill-opacity: 0.85; stroke: #fff; }
svg.swimlane .anomaly text { fill: #d0021b; font-weight: bold; text-anchor: middle; }
svg.swimlane .folded { fill: #777; font-style: italic; }
svg.swimlane .run-label { fill: #444; font: 10px ui-monospace, monospace; }
.picture-notes { font-size: 12px; color: #333; }
.context { font-size: 12px; color: #555; }
details.whole-clip > summary { cursor: pointer; font-size: 12px; color: #555; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
)css";

// Click a header to sort by it; numbers sort numerically (cells may carry data-sort). A link
// ending in #sort=N or #sort=N-desc opens the page sorted by column N (0-based).
constexpr const char* kScript = R"js(
(function () {
  var table = document.getElementById('bugs');
  if (!table) return;
  var headers = table.tHead.rows[0].cells;
  function key(row, column) {
    var cell = row.cells[column];
    var value = cell.getAttribute('data-sort');
    if (value === null) value = cell.textContent.trim();
    var number = Number(value);
    return value !== '' && !isNaN(number) ? number : value.toLowerCase();
  }
  function sortBy(column, ascending) {
    Array.prototype.forEach.call(headers, function (h) { h.classList.remove('sorted-asc', 'sorted-desc'); });
    headers[column].classList.add(ascending ? 'sorted-asc' : 'sorted-desc');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, column), y = key(b, column);
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      var order = x < y ? -1 : x > y ? 1 : key(a, 0) - key(b, 0);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(headers, function (header, column) {
    header.addEventListener('click', function () {
      sortBy(column, !header.classList.contains('sorted-asc'));
    });
  });
  var wanted = /^#sort=(\d+)(-desc)?$/.exec(window.location.hash);
  if (wanted && Number(wanted[1]) < headers.length) sortBy(Number(wanted[1]), !wanted[2]);
})();
)js";

std::string EventLine(const SummaryEvent& event, const SourceExcerpts& sources) {
  std::string text = event.thread_name + " " + event.kind + " " + sources.DisplaySite(event.site);
  if (!event.variable.empty()) text += " [" + event.variable + "]";
  return text;
}

// "in add_batch (lost_update.c:20) ← worker (lost_update.c:31); T1 created at lost_update.c:45
// (main)": the calls open at the event and where its thread was created, when the trace says.
std::string EventContextLine(const SummaryEvent& event, const SourceExcerpts& sources) {
  std::string line;
  for (size_t i = 0; i < event.stack.size(); i++) {
    const SummarySite& frame = event.stack[i];
    line +=
        (i == 0 ? "in " : " \u2190 ") +
        (frame.function.empty()
             ? sources.DisplaySite(frame)
             : frame.function + (frame.file.empty() ? ""
                                                    : " (" + sources.DisplayPath(frame.file) + ":" +
                                                          std::to_string(frame.line) + ")"));
  }
  if (!event.thread_created_at.text.empty())
    line += (line.empty() ? "" : "; ") + event.thread_name + " created at " +
            sources.DisplaySite(event.thread_created_at);
  return line;
}

std::string VariantLine(const SummaryFinding& finding) {
  return finding.pattern + " " + finding.variant + " \u2014 " + VerdictText(finding.verdict);
}

// A few lines of source around `site`, its own line marked; nothing when the file is not here.
void WriteSource(std::ostringstream& html, const SummarySite& site, SourceExcerpts& sources) {
  html << "<div class=\"source\"><div class=\"loc\">" << XmlEscape(sources.DisplaySite(site))
       << "</div>";
  const auto lines = sources.Around(site);
  if (!lines.empty()) {
    html << "<pre>";
    for (const auto& [number, text] : lines) {
      const std::string row = std::to_string(number) + " | " + text;
      if (number == site.line)
        html << "<mark>" << XmlEscape(row) << "</mark>\n";
      else
        html << XmlEscape(row) << "\n";
    }
    html << "</pre>";
  }
  html << "</div>\n";
}

// The picture's marks in words: the anomaly's events (e1, e2, ...) in the order replay runs
// them, and the steps the generator moved, by thread.
void WritePictureNotes(std::ostringstream& html, const SwimlanePicture& picture) {
  html << "<p class=\"picture-notes\">";
  for (size_t a = 0; a < picture.anomaly_labels.size(); a++)
    html << (a == 0 ? "" : "; ") << "<b>e" << a + 1
         << "</b>: " << XmlEscape(picture.anomaly_labels[a]);
  // Moved steps, as ranges per thread.
  std::vector<uint64_t> moved = picture.moved_steps;
  std::sort(moved.begin(), moved.end());
  std::vector<uint64_t> run_start(picture.run_length.size() + 1, 0);
  for (size_t r = 0; r < picture.run_length.size(); r++)
    run_start[r + 1] = run_start[r] + picture.run_length[r];
  auto thread_of = [&](uint64_t step) -> std::string {
    auto it = std::upper_bound(run_start.begin(), run_start.end(), step);
    const size_t r = static_cast<size_t>(it - run_start.begin()) - 1;
    if (r >= picture.run_thread.size()) return "?";
    const uint32_t t = picture.run_thread[r];
    return t < picture.lane_names.size() ? picture.lane_names[t] : "T" + std::to_string(t);
  };
  std::string ranges;
  for (size_t i = 0; i < moved.size();) {
    size_t j = i;
    while (j + 1 < moved.size() && moved[j + 1] == moved[j] + 1 &&
           thread_of(moved[j + 1]) == thread_of(moved[i]))
      j++;
    ranges += (ranges.empty() ? "" : ", ") + thread_of(moved[i]) + " step" +
              (i == j ? " " + std::to_string(moved[i])
                      : "s " + std::to_string(moved[i]) + ".." + std::to_string(moved[j]));
    i = j + 1;
  }
  if (!ranges.empty())
    html << (picture.anomaly_labels.empty() ? "" : ". ")
         << "Moved by the generator: " << XmlEscape(ranges);
  html << ".</p>\n";
}

// One variant of a bug: its events, why, the replay's verdict, its clip as a picture.
void WriteVariant(std::ostringstream& html, const SummaryFinding& f,
                  const SourceExcerpts& sources) {
  html << "<section class=\"variant\" id=\"finding-" << XmlEscape(f.id) << "\"><h4>"
       << XmlEscape(f.pattern + " " + f.variant) << " \u2014 <span class=\"verdict-"
       << XmlEscape(f.verdict.outcome.empty() ? "none" : f.verdict.outcome) << "\">"
       << XmlEscape(VerdictText(f.verdict)) << "</span> <small>(" << XmlEscape(f.id)
       << ")</small></h4>\n<ol>";
  for (const auto& event : f.events) {
    html << "<li><code>" << XmlEscape(EventLine(event, sources)) << "</code>";
    const std::string context = EventContextLine(event, sources);
    if (!context.empty()) html << "<div class=\"context\">" << XmlEscape(context) << "</div>";
    html << "</li>";
  }
  html << "</ol>\n";
  if (!f.reason.empty()) html << "<p>" << XmlEscape(f.reason) << "</p>\n";
  if (!f.verdict.reason.empty()) html << "<p>Replay: " << XmlEscape(f.verdict.reason) << "</p>\n";
  if (!f.verdict.failure_message.empty())
    html << "<p class=\"failure\">" << XmlEscape(f.verdict.failure_message) << "</p>\n";
  if (!f.clip_path.empty()) {
    html << "<div class=\"svgbox\">" << RenderSwimlaneWindowSvg(f.picture) << "</div>\n";
    WritePictureNotes(html, f.picture);
    uint64_t steps = 0;
    for (uint32_t length : f.picture.run_length) steps += length;
    html << "<details class=\"whole-clip\"><summary>The whole clip: " << steps << " steps in "
         << f.picture.run_thread.size() << " runs</summary><div class=\"svgbox\">"
         << RenderSwimlaneSvg(f.picture) << "</div></details>\n";
    html << "<p>Clip <code>" << XmlEscape(f.clip_path) << "</code> (" << f.clip_steps
         << " steps) from <code>" << XmlEscape(f.clip_trace) << "</code>.</p>\n";
    if (!f.replay_command.empty()) html << "<pre>" << XmlEscape(f.replay_command) << "</pre>\n";
  } else {
    html << "<p>No clip: " << XmlEscape(f.clip_error) << "</p>\n";
  }
  html << "<p class=\"traces\">Seen in " << f.traces.size() << " trace"
       << (f.traces.size() == 1 ? "" : "s") << ": ";
  for (size_t t = 0; t < f.traces.size(); t++)
    html << (t ? ", " : "") << "<code>" << XmlEscape(f.traces[t]) << "</code>";
  html << "</p>\n</section>\n";
}

// A table of bugs: one row per entry, its variants inside; refuted ones say why.
void WriteBugTable(std::ostringstream& html, const std::string& id,
                   const std::vector<FindingGroup>& groups, const std::vector<size_t>& which,
                   const std::vector<SummaryFinding>& findings, const SourceExcerpts& sources) {
  html << "<table id=\"" << id << "\">\n<colgroup><col class=\"n\"><col class=\"evidence\">"
       << "<col><col><col><col class=\"count\"></colgroup>\n<thead><tr><th>#</th>"
       << "<th>evidence</th><th>bug</th><th>where</th><th>variants</th><th>traces</th></tr>"
       << "</thead>\n<tbody>\n";
  for (size_t n : which) {
    const FindingGroup& g = groups[n];
    const char* evidence = EvidenceName(g.evidence);
    html << "<tr class=\"bug\" data-id=\"" << XmlEscape(g.id) << "\" data-evidence=\"" << evidence
         << "\"><td data-sort=\"" << n + 1 << "\"><a href=\"#" << XmlEscape(g.id) << "\">" << n + 1
         << "</a></td><td class=\"evidence-" << evidence << "\" data-sort=\""
         << static_cast<int>(g.evidence) << "\">" << evidence << "</td><td>" << XmlEscape(g.title)
         << "</td><td class=\"sites\">";
    for (const SummarySite& site : g.sites)
      html << "<div>" << XmlEscape(sources.DisplaySite(site)) << "</div>";
    html << "</td><td class=\"variants\" data-sort=\"" << g.members.size() << "\">";
    for (size_t i : g.members) {
      html << "<div>" << XmlEscape(VariantLine(findings[i]));
      if (g.evidence == Evidence::kRefuted && !findings[i].verdict.reason.empty())
        html << ": " << XmlEscape(findings[i].verdict.reason);
      html << "</div>";
    }
    html << "</td><td>" << g.traces << "</td></tr>\n";
  }
  html << "</tbody>\n</table>\n";
}

void WriteBugCard(std::ostringstream& html, size_t number, const FindingGroup& g,
                  const std::vector<SummaryFinding>& findings, SourceExcerpts& sources) {
  html << "<div class=\"card bug-card\" id=\"" << XmlEscape(g.id) << "\">\n<h3>" << number << ". "
       << XmlEscape(g.title) << " \u2014 <span class=\"evidence-" << EvidenceName(g.evidence)
       << "\">" << EvidenceName(g.evidence) << "</span></h3>\n";
  html << "<p>" << g.members.size() << " variant" << (g.members.size() == 1 ? "" : "s")
       << ", seen in " << g.traces << " trace" << (g.traces == 1 ? "" : "s") << ".</p>\n";
  for (const SummarySite& site : g.sites) WriteSource(html, site, sources);
  for (size_t i : g.members) WriteVariant(html, findings[i], sources);
  html << "</div>\n";
}

}  // namespace

std::string RenderSummaryHtml(const std::string& title, const std::vector<SummaryTrace>& traces,
                              const std::vector<SummaryFinding>& findings,
                              const std::string& before_findings, const std::string& source_root) {
  std::ostringstream html;
  SourceExcerpts sources(source_root);
  const std::vector<FindingGroup> groups = GroupFindings(findings);
  std::vector<size_t> open, refuted;
  size_t evidence_count[4] = {0, 0, 0, 0};
  for (size_t n = 0; n < groups.size(); n++) {
    (groups[n].evidence == Evidence::kRefuted ? refuted : open).push_back(n);
    evidence_count[static_cast<int>(groups[n].evidence)]++;
  }
  size_t damaged = 0, out_of_memory = 0, refuted_findings = 0;
  for (const auto& t : traces) {
    damaged += t.status == "damaged";
    out_of_memory += t.status == "out of memory";
  }
  for (size_t n : refuted) refuted_findings += groups[n].members.size();

  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       << "<title>" << XmlEscape(title) << "</title>\n<style>" << kStyle
       << "</style>\n</head>\n<body>\n";
  html << "<h1>" << XmlEscape(title) << "</h1>\n";
  html << "<p id=\"overview\">" << groups.size() << " bug" << (groups.size() == 1 ? "" : "s")
       << " (" << evidence_count[0] << " failed, " << evidence_count[1] << " confirmed, "
       << evidence_count[2] << " predicted, " << evidence_count[3] << " refuted by replay) from "
       << findings.size() << " distinct findings in " << traces.size() << " trace"
       << (traces.size() == 1 ? "" : "s");
  if (damaged > 0)
    html << ", " << damaged << " damaged trace" << (damaged == 1 ? "" : "s") << " skipped";
  if (out_of_memory > 0)
    html << ", " << out_of_memory << " trace" << (out_of_memory == 1 ? "" : "s")
         << " skipped: out of memory";
  html << ".</p>\n" << before_findings;

  html << "<h2>Bugs</h2>\n<p>Failures first, then bugs replay confirmed, then predictions not "
          "(yet) confirmed. Findings on the same variable at the same code are one bug; its "
          "variants are listed inside.</p>\n";
  WriteBugTable(html, "bugs", groups, open, findings, sources);
  for (size_t n : open) WriteBugCard(html, n + 1, groups[n], findings, sources);

  html << "<details id=\"refuted\"><summary>Refuted by replay: " << refuted.size() << " bug"
       << (refuted.size() == 1 ? "" : "s") << " (" << refuted_findings << " prediction"
       << (refuted_findings == 1 ? "" : "s")
       << ")</summary>\n<p>Replay showed these cannot "
          "happen as predicted (the run diverged from the recording, or deadlocked or timed out "
          "first).</p>\n";
  if (!refuted.empty()) {
    WriteBugTable(html, "refuted-bugs", groups, refuted, findings, sources);
    for (size_t n : refuted) WriteBugCard(html, n + 1, groups[n], findings, sources);
  }
  html << "</details>\n";

  html << "<p class=\"legend\">Clips: each lane is a thread; boxes are runs of consecutive "
          "events in the order the replay runs them (a race's two accesses the other way round "
          "from the recording).<span style=\"background:#7aa6d8\"></span>as recorded"
       << "<span style=\"background:#f5a623\"></span>moved by the generator"
       << "<span style=\"background:#d0021b;border-radius:6px\"></span>the anomaly's events (e1, "
          "e2, ...)</p>\n";

  html << "<h2>Traces</h2>\n<table "
          "id=\"traces\">\n<thead><tr><th>trace</th><th>status</th><th>events</th>"
       << "<th>findings</th><th>note</th></tr></thead>\n<tbody>\n";
  for (const auto& t : traces) {
    std::string note = t.error;
    for (const auto& w : t.warnings) note += (note.empty() ? "" : "; ") + w;
    html << "<tr><td><code>" << XmlEscape(t.path) << "</code></td><td>" << XmlEscape(t.status)
         << "</td><td>" << t.events << "</td><td>" << t.findings << "</td><td>" << XmlEscape(note)
         << "</td></tr>\n";
  }
  html << "</tbody>\n</table>\n<script>" << kScript << "</script>\n</body>\n</html>\n";
  return html.str();
}

}  // namespace pecan::workflow
