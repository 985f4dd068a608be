#include "analyzer/suppressions.h"

#include <fstream>
#include <sstream>

#include "analyzer/symbolizer.h"
#include "trace_format/error.h"

namespace pecan {
namespace {

// ThreadSanitizer's types with no meaning for pecan's findings.
bool TsanOnlyType(const std::string& type) {
  return type == "thread" || type == "mutex" || type == "signal" || type == "called_from_lib";
}

bool KnownType(const std::string& type) {
  return type == "race" || type == "race_top" || type == "atomicity" || type == "asv" ||
         type == "deadlock";
}

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

// Glob match of `pattern` (no ^ or $ left: anchoring is the caller's) against `text` starting at
// the beginning and covering all of it: * matches any run of characters.
bool GlobWhole(const std::string& pattern, size_t p, const std::string& text, size_t t) {
  size_t star = std::string::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      p++;
      t++;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') p++;
  return p == pattern.size();
}

}  // namespace

Suppressions Suppressions::Parse(const std::string& text, const std::string& source,
                                 std::vector<std::string>* warnings) {
  Suppressions suppressions;
  std::istringstream lines(text);
  size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    number++;
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    const std::string where = source + ":" + std::to_string(number) + ": ";
    const size_t colon = line.find(':');
    if (colon == std::string::npos)
      throw PecanError(where + "expected TYPE:PATTERN (e.g. race:parse_header), got '" + line +
                       "'");
    const std::string type = Trim(line.substr(0, colon));
    const std::string pattern = Trim(line.substr(colon + 1));
    if (TsanOnlyType(type)) {
      if (warnings != nullptr)
        warnings->push_back(where + "'" + type +
                            ":' suppressions are ThreadSanitizer's and mean nothing to pecan; "
                            "skipped");
      continue;
    }
    if (type.empty() || type.find_first_of(" \t") != std::string::npos)
      throw PecanError(where + "expected TYPE:PATTERN (e.g. race:parse_header), got '" + line +
                       "'");
    if (pattern.empty() || pattern == "^" || pattern == "$" || pattern == "^$")
      throw PecanError(where + "the pattern after '" + type + ":' is empty");
    // Another type may be a user pattern's name (the pattern file is not known here): kept, and
    // said, since a misspelt "rcae:" would otherwise hide nothing in silence.
    if (!KnownType(type) && warnings != nullptr)
      warnings->push_back(where + "'" + type +
                          "' is no built-in pattern (race, atomicity, asv, deadlock): it hides "
                          "only findings of a user pattern of that name");
    suppressions.rules_.push_back({type == "race_top" ? "race" : type, pattern, number});
  }
  return suppressions;
}

Suppressions Suppressions::Read(const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream in(path);
  if (!in) throw PecanError(path + ": cannot read the suppressions file");
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path, warnings);
}

bool Suppressions::Matches(const std::string& pattern, const std::string& text) {
  if (text.empty()) return false;
  std::string glob = pattern;
  const bool anchored_start = !glob.empty() && glob.front() == '^';
  if (anchored_start) glob.erase(0, 1);
  const bool anchored_end = !glob.empty() && glob.back() == '$';
  if (anchored_end) glob.pop_back();
  // Unanchored ends match any run of characters there.
  if (!anchored_start) glob.insert(0, "*");
  if (!anchored_end) glob.push_back('*');
  return GlobWhole(glob, 0, text, 0);
}

const Suppressions::Rule* Suppressions::Match(const std::string& finding_pattern,
                                              const std::string& function, const std::string& file,
                                              const std::string& module) const {
  for (const Rule& rule : rules_) {
    if (rule.type != finding_pattern) continue;
    if (Matches(rule.pattern, function) || Matches(rule.pattern, file) ||
        Matches(rule.pattern, module))
      return &rule;
  }
  return nullptr;
}

size_t ApplySuppressions(const Trace& trace, Symbolizer& symbolizer,
                         const Suppressions& suppressions, std::vector<Finding>& findings) {
  if (suppressions.rules().empty()) return 0;
  size_t removed = 0;
  std::vector<Finding> kept;
  for (Finding& finding : findings) {
    bool hidden = false;
    for (EventIndex e : finding.events) {
      if (e >= trace.size_events()) continue;
      const SiteId site = trace.site[e];
      const SourceLocation location = symbolizer.Resolve(site);
      std::string module;
      if (site < trace.sites.size())
        for (const ModuleInfo& m : trace.modules)
          if (m.id == trace.sites[site].module) module = m.path;
      if (suppressions.Match(finding.pattern, location.function, location.file, module)) {
        hidden = true;
        break;
      }
    }
    if (hidden)
      removed++;
    else
      kept.push_back(std::move(finding));
  }
  findings = std::move(kept);
  return removed;
}

}  // namespace pecan
