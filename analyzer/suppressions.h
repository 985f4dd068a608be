// --suppressions FILE: findings a team has looked at and decided to hide, in ThreadSanitizer's
// format, so one file serves both tools. Each line is TYPE:PATTERN (blank lines and # comments
// skipped). TYPE is race (race_top alike: pecan has no stacks, so both match an event's own
// code), atomicity, asv, deadlock or a user pattern's name. A finding of that pattern is hidden
// when PATTERN matches the function, the source file or the module of any of its events.
// PATTERN is a substring with * for any run of characters, ^ anchoring its start and $ its end.
// ThreadSanitizer's thread, mutex, signal and called_from_lib lines mean nothing here: they are
// skipped with a warning.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/finding.h"
#include "trace_format/trace.h"

namespace pecan {

class Symbolizer;

class Suppressions {
 public:
  struct Rule {
    std::string type;     // "race", "atomicity", "asv", "deadlock" or a user pattern's name
    std::string pattern;  // as written, ^ and $ included
    size_t line = 0;      // in the file, for messages
  };

  // Reads FILE. Throws PecanError("FILE:LINE: ...") for a line without TYPE:PATTERN, an empty
  // pattern, or a type pecan does not know; `warnings` gets the lines it skips.
  static Suppressions Read(const std::string& path, std::vector<std::string>* warnings = nullptr);
  static Suppressions Parse(const std::string& text, const std::string& source,
                            std::vector<std::string>* warnings = nullptr);

  // Whether `pattern` (the glob as written) matches `text`.
  static bool Matches(const std::string& pattern, const std::string& text);

  // The rule that hides a finding of `finding_pattern` one of whose events runs `function` in
  // `file` of `module`, or null.
  const Rule* Match(const std::string& finding_pattern, const std::string& function,
                    const std::string& file, const std::string& module) const;

  const std::vector<Rule>& rules() const { return rules_; }

 private:
  std::vector<Rule> rules_;
};

// Removes the findings a rule hides, naming each event's code with `symbolizer`. Returns how
// many it removed.
size_t ApplySuppressions(const Trace& trace, Symbolizer& symbolizer,
                         const Suppressions& suppressions, std::vector<Finding>& findings);

}  // namespace pecan
