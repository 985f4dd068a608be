#include "workflow/fuzz_observed_races.h"

namespace pecan::workflow {

std::pair<std::string, uint64_t> ModuleOffsetOf(const Trace& trace, SiteId site_id) {
  if (site_id >= trace.sites.size()) return {};
  const SiteInfo& info = trace.sites[site_id];
  if (info.module == kNoModule) return {};
  for (const ModuleInfo& module : trace.modules)
    if (module.id == info.module) return {module.path, info.offset};
  return {};
}

void AddModuleOffset(const Trace& trace, SiteId site_id, nlohmann::json& site) {
  const auto [module, offset] = ModuleOffsetOf(trace, site_id);
  if (module.empty()) return;
  char text[32];
  snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(offset));
  site["module"] = module;
  site["offset"] = text;
}

std::string ThreadLabel(const Trace& trace, ThreadId t) {
  return t < trace.threads.size() && !trace.threads[t].name.empty() ? trace.threads[t].name
                                                                    : "T" + std::to_string(t);
}

nlohmann::json ObservedAccessJson(const Trace& trace, Symbolizer& symbolizer,
                                  const std::string& thread, EventKind kind, SiteId site_id,
                                  uint64_t address, uint64_t size) {
  const SourceLocation source = symbolizer.Resolve(site_id);
  nlohmann::json site{{"text", symbolizer.Describe(site_id)}};
  if (!source.file.empty()) {
    site["file"] = source.file;
    site["line"] = source.line;
  }
  if (!source.function.empty()) site["function"] = source.function;
  AddModuleOffset(trace, site_id, site);
  const std::optional<std::string> variable = symbolizer.NameOfAddress(address);
  return nlohmann::json{
      {"thread", thread},
      {"kind", std::string(EventKindName(kind))},
      {"site", std::move(site)},
      {"variable", variable ? nlohmann::json(*variable) : nlohmann::json(nullptr)},
      {"size", size}};
}

nlohmann::json ObservedRacesJson(const Trace& trace, const std::vector<HappensBeforeRace>& races) {
  Symbolizer symbolizer(trace);
  auto access = [&](EventIndex e) {
    return ObservedAccessJson(trace, symbolizer, ThreadLabel(trace, trace.thread[e]), trace.kind[e],
                              trace.site[e], trace.addr[e], trace.size[e]);
  };
  nlohmann::json out = nlohmann::json::array();
  for (const HappensBeforeRace& race : races)
    out.push_back({{"first", access(race.first)}, {"second", access(race.second)}});
  return out;
}

}  // namespace pecan::workflow
