// ReasonPlaces and SymbolizedPlaces: the runtime's "module+0xOFFSET" places through PlaceNames.
#include "cli/replay_reason_text.h"

#include <cctype>
#include <cstring>
#include <string_view>

namespace pecan::cli {

using workflow::BaseName;

namespace {

constexpr std::string_view kPlaceMark = "+0x";
// More hex digits than an offset has: not a place.
constexpr size_t kMaxOffsetDigits = 16;

// A module's file name ends at a space or at the punctuation around a place in a sentence
// ("at prog+0x10, saw ...", "(prog+0x10)"); '+', '.' and '-' belong to names (libstdc++.so.6).
bool InModuleName(char c) {
  return c != '\0' && !std::isspace(static_cast<unsigned char>(c)) &&
         std::strchr("()[]{},;:'\"<>=`", c) == nullptr;
}

bool InWord(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

ReasonPlaces::ReasonPlaces(const proto::Clip& clip, const proto::Verdict& verdict)
    : names_(verdict) {
  auto add = [&](const std::string& path, const std::string& build_id) {
    if (path.empty()) return;
    proto::Place place;
    place.set_module(path);
    place.set_build_id(build_id);
    modules_.try_emplace(BaseName(path), place);
  };
  for (const auto& module : clip.modules()) add(module.path(), module.build_id());
  auto add_place = [&](const proto::Place& place) { add(place.module(), place.build_id()); };
  add_place(verdict.failure_site());
  for (const proto::StuckThread& thread : verdict.stuck_threads())
    for (const proto::Place* place :
         {&thread.at(), &thread.object(), &thread.held_at(), &thread.spin_at()})
      add_place(*place);
  for (const proto::RealRace& race : verdict.races())
    for (const proto::RaceAccess* access : {&race.first(), &race.second()})
      add_place(access->site());
}

std::optional<std::string> ReasonPlaces::Code(const std::string& module_name, uint64_t offset) {
  auto module = modules_.find(module_name);
  if (module == modules_.end()) return std::nullopt;
  proto::Place place = module->second;
  place.set_offset(offset);
  const SourceLocation location = names_.Source(place);
  if (location.file.empty()) return std::nullopt;
  std::string text = BaseName(location.file) + ":" + std::to_string(location.line);
  if (!location.function.empty()) text += " (" + location.function + ")";
  return text;
}

std::string SymbolizedPlaces(const std::string& text, ReasonPlaces& places) {
  std::string result;
  size_t copied = 0;  // text[0, copied) is in result
  for (size_t mark = text.find(kPlaceMark); mark != std::string::npos;
       mark = text.find(kPlaceMark, mark + 1)) {
    size_t name_start = mark;
    while (name_start > copied && InModuleName(text[name_start - 1])) --name_start;
    const size_t digits_start = mark + kPlaceMark.size();
    size_t end = digits_start;
    while (end < text.size() && std::isxdigit(static_cast<unsigned char>(text[end]))) ++end;
    const size_t digits = end - digits_start;
    if (name_start == mark || digits == 0 || digits > kMaxOffsetDigits ||
        (end < text.size() && InWord(text[end])))
      continue;
    const std::optional<std::string> code =
        places.Code(text.substr(name_start, mark - name_start),
                    std::stoull(text.substr(digits_start, digits), nullptr, 16));
    if (!code) continue;
    result.append(text, copied, name_start - copied);
    result += *code;
    copied = end;
    mark = end - 1;
  }
  result.append(text, copied, std::string::npos);
  return result;
}

}  // namespace pecan::cli
