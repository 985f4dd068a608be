// Reading what to heal from an analyze JSON report or a fuzz.json (heal_targets.h).
#include "workflow/heal_targets.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "trace_format/error.h"
#include "trace_format/trace.h"
#include "trace_format/trace_reader.h"

namespace pecan::workflow {
namespace {

using nlohmann::json;

std::string Where(const json& site) {
  if (site.contains("file") && site["file"].is_string() &&
      !site["file"].get<std::string>().empty() && site.contains("line") &&
      site["line"].is_number()) {
    return std::filesystem::path(site["file"].get<std::string>()).filename().string() + ":" +
           std::to_string(site["line"].get<int64_t>());
  }
  if (site.contains("text") && site["text"].is_string()) return site["text"].get<std::string>();
  return "?";
}

void AddSite(HealTargets& targets, const std::string& module, uint64_t offset,
             const std::string& where) {
  for (const HealSite& site : targets.sites)
    if (site.module == module && site.offset == offset) return;
  targets.sites.push_back(HealSite{module, offset, where});
}

bool IsRaceLike(const json& finding) {
  const std::string pattern = finding.value("pattern", "");
  return pattern == "race" || pattern == "atomicity";
}

const ModuleInfo* ModuleById(const TraceReader& trace, uint32_t id) {
  for (const ModuleInfo& module : trace.modules())
    if (module.id == id) return &module;
  return nullptr;
}

// The module whose image holds `address`: the one loaded highest at or below it.
const ModuleInfo* ModuleHolding(const TraceReader& trace, uint64_t address) {
  const ModuleInfo* best = nullptr;
  for (const ModuleInfo& module : trace.modules())
    if (module.load_address <= address &&
        (best == nullptr || module.load_address > best->load_address))
      best = &module;
  return best;
}

void ReadAnalyzeReport(const std::string& path, const json& report, const std::string& race_id,
                       HealTargets& targets) {
  std::vector<const json*> chosen;
  std::vector<std::string> race_ids;
  for (const json& finding : report["findings"]) {
    if (!finding.is_object() || !IsRaceLike(finding)) continue;
    const std::string id = finding.value("id", "");
    race_ids.push_back(id);
    if (race_id.empty() || id == race_id) chosen.push_back(&finding);
  }
  if (race_ids.empty())
    throw PecanError("heal: " + path + " holds no race or atomicity finding: nothing to heal");
  if (chosen.empty()) {
    std::string known;
    for (const std::string& id : race_ids) known += (known.empty() ? "" : ", ") + id;
    throw PecanError("heal: " + path + " has no race finding " + race_id + " (it has " + known +
                     ")");
  }
  std::string trace_path = report.value("trace", "");
  // A relative trace path is relative to where pecan analyze ran: here, or beside the report.
  const std::filesystem::path beside = std::filesystem::path(path).parent_path() / trace_path;
  if (!trace_path.empty() && std::filesystem::path(trace_path).is_relative() &&
      !std::filesystem::exists(trace_path) && std::filesystem::exists(beside))
    trace_path = beside.string();
  if (trace_path.empty())
    throw PecanError("heal: " + path + " does not name the trace it was analyzed from");
  if (!std::filesystem::exists(trace_path))
    throw PecanError("heal: the trace " + trace_path + " that " + path +
                     " was analyzed from is gone: its sites cannot be resolved without it");
  TraceReader trace(trace_path);
  for (const json* finding : chosen) {
    for (const json& event : (*finding)["events"]) {
      if (!event.contains("site") || !event["site"].contains("id")) continue;
      const uint64_t site_id = event["site"]["id"].get<uint64_t>();
      if (site_id < trace.sites().size()) {
        const SiteInfo& site = trace.sites()[site_id];
        if (const ModuleInfo* module =
                site.module != kNoModule ? ModuleById(trace, site.module) : nullptr)
          AddSite(targets, module->path, site.offset, Where(event["site"]));
      }
      if (!event.contains("variable") || !event["variable"].is_string() ||
          !event.contains("address") || !event["address"].is_string())
        continue;
      // A named variable is a global: its offset in the module whose image holds it.
      const uint64_t address = strtoull(event["address"].get<std::string>().c_str(), nullptr, 16);
      const ModuleInfo* module = ModuleHolding(trace, address);
      if (module == nullptr) continue;
      const uint64_t offset = address - module->load_address;
      const uint64_t size = event.contains("size") && event["size"].is_number_unsigned() &&
                                    event["size"].get<uint64_t>() > 0
                                ? event["size"].get<uint64_t>()
                                : 1;
      bool known = false;
      for (const HealVariable& v : targets.variables)
        known = known || (v.module == module->path && v.offset == offset);
      if (!known)
        targets.variables.push_back(
            HealVariable{module->path, offset, size, event["variable"].get<std::string>()});
    }
  }
}

void ReadFuzzReport(const std::string& path, const json& report, HealTargets& targets) {
  size_t races = 0;
  for (const json& run : report["runs"]) {
    if (!run.is_object() || !run.contains("races") || !run["races"].is_array()) continue;
    for (const json& race : run["races"]) {
      for (const char* side : {"first", "second"}) {
        if (!race.contains(side) || !race[side].contains("site")) continue;
        ++races;
        const json& site = race[side]["site"];
        if (!site.contains("module") || !site.contains("offset") || !site["module"].is_string() ||
            !site["offset"].is_string())
          continue;
        AddSite(targets, site["module"].get<std::string>(),
                strtoull(site["offset"].get<std::string>().c_str(), nullptr, 16), Where(site));
      }
    }
  }
  if (races == 0) throw PecanError("heal: " + path + " holds no race in any run: nothing to heal");
}

}  // namespace

HealTargets ReadHealTargets(const std::string& report_path, const std::string& race_id) {
  std::ifstream in(report_path);
  if (!in)
    throw PecanError("heal: cannot read the report " + report_path + ": " + std::strerror(errno));
  json report = json::parse(in, nullptr, false);
  if (report.is_discarded() || !report.is_object())
    throw PecanError("heal: " + report_path +
                     " is not a JSON report (pecan analyze --format json, or fuzz.json)");
  HealTargets targets;
  if (report.contains("findings") && report["findings"].is_array()) {
    ReadAnalyzeReport(report_path, report, race_id, targets);
  } else if (report.contains("runs") && report["runs"].is_array()) {
    if (!race_id.empty())
      throw PecanError("heal: --race names a finding of an analyze report; " + report_path +
                       " is a fuzz.json");
    ReadFuzzReport(report_path, report, targets);
  } else {
    throw PecanError("heal: " + report_path +
                     " is neither an analyze JSON report (findings) nor a fuzz.json (runs)");
  }
  if (targets.sites.empty() && targets.variables.empty())
    throw PecanError("heal: the races in " + report_path +
                     " name no instruction as module + offset: nothing pecan can find again");
  std::set<std::string> modules;
  for (const HealSite& site : targets.sites) modules.insert(site.module);
  for (const HealVariable& variable : targets.variables) modules.insert(variable.module);
  for (const std::string& module : modules)
    if (!std::filesystem::exists(module))
      throw PecanError("heal: " + report_path + " names code in " + module +
                       ", which does not exist (healing needs the same build)");
  return targets;
}

std::string HealFileText(const HealTargets& targets) {
  std::string text;
  char number[32];
  for (const HealSite& site : targets.sites) {
    snprintf(number, sizeof(number), "%llx", static_cast<unsigned long long>(site.offset));
    text += "site " + site.module + " " + number + "\n";
  }
  for (const HealVariable& variable : targets.variables) {
    snprintf(number, sizeof(number), "%llx", static_cast<unsigned long long>(variable.offset));
    text +=
        "variable " + variable.module + " " + number + " " + std::to_string(variable.size) + "\n";
  }
  return text;
}

}  // namespace pecan::workflow
