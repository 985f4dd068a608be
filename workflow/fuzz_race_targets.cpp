#include "workflow/fuzz_race_targets.h"

namespace pecan::workflow {

std::vector<RaceTarget> RaceTargetsOf(const Trace& trace, const std::vector<Finding>& findings) {
  std::vector<RaceTarget> targets;
  std::map<std::pair<SiteId, SiteId>, size_t> seen;
  Symbolizer symbolizer(trace);
  for (const Finding& f : findings) {
    if (f.pattern != "race" || f.events.size() != 2) continue;
    if (f.events[0] >= trace.size_events() || f.events[1] >= trace.size_events()) continue;
    const SiteId a = trace.site[f.events[0]];
    const SiteId b = trace.site[f.events[1]];
    if (!seen.try_emplace(std::minmax(a, b), targets.size()).second) continue;
    auto where = [&](SiteId site) {
      const SourceLocation source = symbolizer.Resolve(site);
      if (source.file.empty()) return symbolizer.Describe(site);
      const std::string file = std::filesystem::path(source.file).filename().string();
      return file + ":" + std::to_string(source.line);
    };
    targets.push_back({f.id, f.events[0], f.events[1], where(a) + " / " + where(b)});
  }
  return targets;
}

std::vector<Finding> RaceFindingsOfReport(const std::string& report_path, std::string* trace_path) {
  std::ifstream in(report_path);
  if (!in) throw PecanError("fuzz: --races: cannot read " + report_path);
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
  } catch (const std::exception& error) {
    throw PecanError("fuzz: --races: " + report_path + " is not JSON: " + error.what());
  }
  if (!report.is_object() || !report.contains("findings") || !report["findings"].is_array() ||
      !report.contains("trace") || !report["trace"].is_string())
    throw PecanError("fuzz: --races: " + report_path +
                     " is not a pecan report (pecan analyze --format json, or hunt's "
                     "report.json): it needs \"trace\" and \"findings\"");
  const std::filesystem::path named = report["trace"].get<std::string>();
  const std::filesystem::path beside =
      std::filesystem::path(report_path).parent_path() / named.filename();
  if (std::filesystem::exists(named)) {
    *trace_path = named.string();
  } else if (std::filesystem::exists(beside)) {
    *trace_path = beside.string();
  } else {
    throw PecanError("fuzz: --races: the trace of " + report_path + " (" + named.string() +
                     ") is not there, nor beside the report");
  }
  std::vector<Finding> findings;
  for (const auto& entry : report["findings"]) {
    if (!entry.is_object() || entry.value("pattern", "") != "race") continue;
    Finding f;
    f.id = entry.value("id", "");
    f.pattern = "race";
    if (!entry.contains("events") || !entry["events"].is_array()) continue;
    for (const auto& event : entry["events"]) {
      if (event.is_object() && event.contains("index") && event["index"].is_number_unsigned())
        f.events.push_back(event["index"].get<EventIndex>());
    }
    if (f.events.size() == 2) findings.push_back(std::move(f));
  }
  return findings;
}

proto::Clip RaceStartClip(proto::Clip start, const Trace& trace, const RaceTarget& target) {
  start.clear_modules();
  for (const ModuleInfo& m : trace.modules) {
    proto::Module* module = start.add_modules();
    module->set_id(m.id);
    module->set_path(m.path);
    module->set_load_address(m.load_address);
    module->set_build_id(m.build_id);
  }
  proto::Finding* finding = start.mutable_finding();
  finding->Clear();
  finding->set_id(target.id);
  finding->set_pattern("race");
  // Clip-local site ids after the start clip's own (0: the main thread's first event).
  uint32_t next_site = 1;
  for (const EventIndex e : {target.first, target.second}) {
    const SiteInfo& info = trace.sites.at(trace.site[e]);
    proto::Site* site = start.add_sites();
    site->set_id(next_site);
    site->set_module(info.module);
    site->set_offset(info.offset);
    proto::FindingEvent* event = finding->add_events();
    event->set_index(e);
    // Only the statements matter: the start clip knows no thread but the main one.
    event->set_thread(0);
    event->set_kind(static_cast<proto::EventKind>(trace.kind[e]));
    event->set_address(trace.addr[e]);
    event->set_size(trace.size[e]);
    event->set_site(next_site++);
  }
  start.set_generator("fuzz start (racefuzzer)");
  return start;
}

}  // namespace pecan::workflow
