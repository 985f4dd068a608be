// Writes the self-contained HTML summary of a triage (or hunt): a sortable table with one row per
// finding and, per finding, its clip as a swimlane picture. Inline CSS and JS only, no network.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/workflow_finding_summary.h"
#include "cli/workflow_swimlane_svg.h"

namespace pecan::cli {

namespace html_summary_detail {

inline constexpr const char* kStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; cursor: pointer; user-select: none; white-space: nowrap; }
th.sorted-asc::after { content: " \25B2"; } th.sorted-desc::after { content: " \25BC"; }
td.sites div { white-space: nowrap; font-family: ui-monospace, monospace; font-size: 12px; }
.verdict-hatched { color: #b00020; font-weight: bold; }
.verdict-infeasible { color: #555; } .verdict-error { color: #a60; }
.failure { color: #b00020; }
.traces { font-size: 12px; color: #444; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
.card pre { background: #f7f7f7; padding: 6px; overflow-x: auto; }
.svgbox { overflow-x: auto; }
svg.swimlane { font: 11px sans-serif; }
svg.swimlane .lane { stroke: #e2e2e2; stroke-width: 1; }
svg.swimlane .lane-name { fill: #333; }
svg.swimlane .run { fill: #7aa6d8; }
svg.swimlane .run.moved { fill: #f5a623; }
svg.swimlane .handoff { stroke: #999; stroke-width: 0.7; }
svg.swimlane .anomaly circle { fill: #d0021b; fill-opacity: 0.85; stroke: #fff; }
svg.swimlane .anomaly text { fill: #d0021b; font-weight: bold; text-anchor: middle; }
svg.swimlane .folded { fill: #777; font-style: italic; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
)css";

// Click a header to sort by it; numbers sort numerically (cells may carry data-sort). A link
// ending in #sort=N or #sort=N-desc opens the page sorted by column N (0-based).
inline constexpr const char* kScript = R"js(
(function () {
  var table = document.getElementById('findings');
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

inline std::string VerdictText(const SummaryVerdict& verdict) {
  if (verdict.outcome.empty()) return "not replayed";
  if (verdict.confirmed())
    return verdict.failure.empty() ? "confirmed" : "confirmed, " + verdict.failure;
  if (verdict.outcome == "exposed") return "failed: " + verdict.failure;
  return verdict.outcome;
}

inline std::string EventLine(const SummaryEvent& event) {
  std::string text = event.thread_name + " " + event.kind + " " + event.site.text;
  if (!event.variable.empty()) text += " [" + event.variable + "]";
  return text;
}

}  // namespace html_summary_detail

// `before_findings`: HTML placed between the overview and the findings table (hunt's failures
// found by exploring schedules), already escaped.
inline std::string RenderSummaryHtml(const std::string& title,
                                     const std::vector<SummaryTrace>& traces,
                                     const std::vector<SummaryFinding>& findings,
                                     const std::string& before_findings = "") {
  using namespace html_summary_detail;
  std::ostringstream html;
  size_t confirmed = 0, damaged = 0;
  for (const auto& f : findings) confirmed += f.verdict.confirmed();
  for (const auto& t : traces) damaged += t.status == "damaged";

  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       << "<title>" << XmlEscape(title) << "</title>\n<style>" << kStyle
       << "</style>\n</head>\n<body>\n";
  html << "<h1>" << XmlEscape(title) << "</h1>\n";
  html << "<p id=\"overview\">" << findings.size() << " distinct findings (" << confirmed
       << " confirmed by replay) from " << traces.size() << " traces";
  if (damaged > 0)
    html << ", " << damaged << " damaged trace" << (damaged == 1 ? "" : "s") << " skipped";
  html << ".</p>\n" << before_findings;

  html << "<table "
          "id=\"findings\">\n<thead><tr><th>#</th><th>pattern</th><th>variant</th><th>sites</th>"
       << "<th>traces</th><th>witnesses</th><th>clip "
          "steps</th><th>verdict</th></tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < findings.size(); i++) {
    const auto& f = findings[i];
    html << "<tr class=\"finding\" data-id=\"" << XmlEscape(f.id) << "\"><td data-sort=\"" << i + 1
         << "\"><a href=\"#finding-" << XmlEscape(f.id) << "\">" << i + 1 << "</a></td><td>"
         << XmlEscape(f.pattern) << "</td><td>" << XmlEscape(f.variant)
         << "</td><td class=\"sites\">";
    for (const auto& event : f.events) html << "<div>" << XmlEscape(EventLine(event)) << "</div>";
    html << "</td><td data-sort=\"" << f.traces.size() << "\">" << f.traces.size() << "</td><td>"
         << f.witnesses << "</td><td data-sort=\"" << (f.clip_path.empty() ? 0 : f.clip_steps)
         << "\">" << (f.clip_path.empty() ? std::string("none") : std::to_string(f.clip_steps))
         << "</td><td class=\"verdict-"
         << XmlEscape(f.verdict.outcome.empty() ? "none" : f.verdict.outcome) << "\">"
         << XmlEscape(VerdictText(f.verdict)) << "</td></tr>\n";
  }
  html << "</tbody>\n</table>\n";

  html << "<h2>Clips</h2>\n<p class=\"legend\">Each lane is a thread; boxes are runs of "
          "consecutive events"
       << " in the order the replay runs them (a race's two accesses the other way round from "
          "the recording).<span style=\"background:#7aa6d8\"></span>as recorded"
       << "<span style=\"background:#f5a623\"></span>moved by the generator"
       << "<span style=\"background:#d0021b;border-radius:6px\"></span>the anomaly's events (e1, "
          "e2, ...)</p>\n";
  for (size_t i = 0; i < findings.size(); i++) {
    const auto& f = findings[i];
    html << "<div class=\"card\" id=\"finding-" << XmlEscape(f.id) << "\">\n<h3>" << i + 1 << ". "
         << XmlEscape(f.pattern) << " " << XmlEscape(f.variant) << " — "
         << XmlEscape(VerdictText(f.verdict)) << "</h3>\n<ol>";
    for (const auto& event : f.events)
      html << "<li><code>" << XmlEscape(EventLine(event)) << "</code></li>";
    html << "</ol>\n";
    if (!f.reason.empty()) html << "<p>" << XmlEscape(f.reason) << "</p>\n";
    if (!f.verdict.reason.empty()) html << "<p>Replay: " << XmlEscape(f.verdict.reason) << "</p>\n";
    if (!f.clip_path.empty()) {
      html << "<div class=\"svgbox\">" << RenderSwimlaneSvg(f.picture) << "</div>\n";
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
    html << "</p>\n</div>\n";
  }

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

}  // namespace pecan::cli
