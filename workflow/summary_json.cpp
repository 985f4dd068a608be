#include "workflow/summary_json.h"

namespace pecan::workflow {

nlohmann::json SiteJson(const SummarySite& site) {
  nlohmann::json json{{"text", site.text}};
  if (!site.file.empty()) json["file"] = site.file;
  if (site.line != 0) json["line"] = site.line;
  if (!site.function.empty()) json["function"] = site.function;
  return json;
}

nlohmann::json VerdictJson(const SummaryVerdict& verdict) {
  if (verdict.outcome.empty()) return nullptr;
  nlohmann::json json{{"outcome", verdict.outcome},
                      {"failure", verdict.failure},
                      {"reason", verdict.reason},
                      {"seconds", verdict.seconds}};
  if (verdict.signal != 0) json["signal"] = verdict.signal;
  if (verdict.failure == "exit") json["exit_status"] = verdict.exit_status;
  if (!verdict.failure_message.empty()) json["failure_message"] = verdict.failure_message;
  if (!verdict.failure_clip.empty()) json["failure_clip"] = verdict.failure_clip;
  if (!verdict.divergence.empty()) json["divergence"] = verdict.divergence;
  return json;
}

nlohmann::json FindingJson(const SummaryFinding& finding) {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& event : finding.events) {
    nlohmann::json e{{"thread", event.thread},
                     {"thread_name", event.thread_name},
                     {"kind", event.kind},
                     {"site", SiteJson(event.site)}};
    if (!event.variable.empty()) e["variable"] = event.variable;
    if (!event.stack.empty()) {
      e["stack"] = nlohmann::json::array();
      for (const SummarySite& frame : event.stack) e["stack"].push_back(SiteJson(frame));
    }
    if (!event.thread_created_at.text.empty())
      e["thread_created_at"] = SiteJson(event.thread_created_at);
    events.push_back(std::move(e));
  }
  nlohmann::json json{{"id", finding.id},
                      {"pattern", finding.pattern},
                      {"variant", finding.variant},
                      {"observed", finding.observed},
                      {"sound", finding.sound},
                      {"reason", finding.reason},
                      {"key", finding.key},
                      {"events", std::move(events)},
                      {"traces", finding.traces},
                      {"trace_count", finding.traces.size()},
                      {"witnesses", finding.witnesses},
                      {"verdict", VerdictJson(finding.verdict)},
                      {"confirmed", finding.verdict.confirmed()},
                      {"failed", !finding.verdict.failure.empty()}};
  // Why a prediction with no verdict was not replayed (hunt: --budget spent, a variant's replay).
  if (finding.verdict.outcome.empty() && !finding.verdict.reason.empty())
    json["not_replayed"] = finding.verdict.reason;
  if (!finding.clip_path.empty()) {
    json["clip"] = {
        {"path", finding.clip_path}, {"trace", finding.clip_trace}, {"steps", finding.clip_steps}};
    if (!finding.replay_command.empty()) json["replay_command"] = finding.replay_command;
  } else {
    json["clip"] = nullptr;
    json["clip_error"] = finding.clip_error;
  }
  return json;
}

nlohmann::json TraceJson(const SummaryTrace& trace) {
  nlohmann::json json{{"path", trace.path},         {"status", trace.status},
                      {"events", trace.events},     {"findings", trace.findings},
                      {"warnings", trace.warnings}, {"seconds", trace.seconds}};
  if (!trace.error.empty()) json["error"] = trace.error;
  return json;
}

nlohmann::json FindingsJson(const std::vector<SummaryFinding>& findings) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& finding : findings) array.push_back(FindingJson(finding));
  return array;
}

}  // namespace pecan::workflow
