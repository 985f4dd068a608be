// PlaceNames: a small trace of the verdict's modules, symbolized by the analyzer's Symbolizer.
#include "workflow/verdict_place_names.h"

#include <cstdio>

namespace pecan::workflow {

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

PlaceNames::PlaceNames(const proto::Verdict& verdict) {
  for (const proto::StuckThread& thread : verdict.stuck_threads())
    for (const proto::Place* place :
         {&thread.at(), &thread.object(), &thread.held_at(), &thread.spin_at()})
      Module(*place);
  Module(verdict.failure_site());
  for (const proto::RealRace& race : verdict.races())
    for (const proto::RaceAccess* access : {&race.first(), &race.second()}) {
      Module(access->site());
      Module(access->address());
    }
  symbolizer_.emplace(trace_);
}

std::string PlaceNames::Code(const proto::Place& place) {
  if (place.address() == 0 && place.module().empty()) return "";
  const std::optional<uint32_t> module = Module(place);
  if (!module) return Hex(place.address());
  trace_.sites.push_back(SiteInfo{*module, place.offset()});
  const SourceLocation location = symbolizer_->Resolve(trace_.sites.size() - 1);
  if (!location.file.empty()) return BaseName(location.file) + ":" + std::to_string(location.line);
  return BaseName(place.module()) + "+" + Hex(place.offset());
}

SourceLocation PlaceNames::Source(const proto::Place& place) {
  const std::optional<uint32_t> module = Module(place);
  if (!module) return {};
  trace_.sites.push_back(SiteInfo{*module, place.offset()});
  return symbolizer_->Resolve(trace_.sites.size() - 1);
}

std::optional<std::string> PlaceNames::ObjectName(const proto::Place& place) {
  const std::optional<uint32_t> module = Module(place);
  if (!module) return std::nullopt;
  return symbolizer_->NameOfAddress(LoadAddressOf(*module) + place.offset());
}

std::string PlaceNames::Object(const proto::Place& place) {
  if (auto name = ObjectName(place)) return "`" + *name + "`";
  return Hex(place.address());
}

std::optional<uint32_t> PlaceNames::Module(const proto::Place& place) {
  if (place.module().empty()) return std::nullopt;
  auto [entry, added] = ids_.try_emplace(place.module(), static_cast<uint32_t>(ids_.size() + 1));
  if (added) {
    ModuleInfo info;
    info.id = entry->second;
    info.path = place.module();
    info.load_address = LoadAddressOf(info.id);
    info.build_id = place.build_id();
    trace_.modules.push_back(info);
  }
  return entry->second;
}

}  // namespace pecan::workflow
