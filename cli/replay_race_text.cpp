// RealRacesJson and FirstRealRaceText over PlaceNames.
#include "cli/replay_race_text.h"

#include "trace_format/event_kind.h"
#include "workflow/verdict_place_names.h"

namespace pecan::cli {

using workflow::Hex;
using workflow::PlaceNames;

namespace {

nlohmann::json AccessJson(const proto::RaceAccess& access, PlaceNames& names) {
  const SourceLocation source = names.Source(access.site());
  nlohmann::json site{{"text", names.Code(access.site())}};
  if (!source.file.empty()) {
    site["file"] = source.file;
    site["line"] = source.line;
  }
  if (!source.function.empty()) site["function"] = source.function;
  const std::optional<std::string> variable = names.ObjectName(access.address());
  return {{"thread", access.thread()},
          {"kind", std::string(EventKindName(static_cast<EventKind>(access.kind())))},
          {"site", std::move(site)},
          {"variable", variable ? nlohmann::json(*variable) : nlohmann::json(nullptr)},
          {"address", Hex(access.address().address())},
          {"size", access.size()}};
}

}  // namespace

nlohmann::json RealRacesJson(const proto::Verdict& verdict) {
  nlohmann::json races = nlohmann::json::array();
  if (verdict.races().empty()) return races;
  PlaceNames names(verdict);
  for (const proto::RealRace& race : verdict.races()) {
    races.push_back(
        {{"first", AccessJson(race.first(), names)}, {"second", AccessJson(race.second(), names)}});
  }
  return races;
}

std::string FirstRealRaceText(const proto::Verdict& verdict) {
  if (verdict.races().empty()) return "";
  PlaceNames names(verdict);
  const proto::RealRace& race = verdict.races(0);
  auto side = [&](const proto::RaceAccess& access) {
    return access.thread() + " " +
           std::string(EventKindName(static_cast<EventKind>(access.kind()))) + " " +
           names.Object(access.address()) + " (" + names.Code(access.site()) + ")";
  };
  return side(race.first()) + ", then " + side(race.second());
}

}  // namespace pecan::cli
