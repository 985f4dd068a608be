// An access-anomaly pattern (PECAN section 3): equal-length sequences of threads, shared
// variables, atomic regions and access types, plus the parser for the pattern text format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pecan {

enum class AccessMatch : uint8_t {
  kRead,   // r: READ or ATOMIC_LOAD
  kWrite,  // w: WRITE, ATOMIC_STORE or ATOMIC_RMW
  kAny,    // *: any access
};

// One pattern. Symbols are numbered densely in order of first use: thread[i] == thread[j] means
// "same thread", != means "different threads"; likewise variables and regions (regions of one
// symbol are one unit of work, so they share the thread symbol too).
struct Pattern {
  std::string name;     // family, reported as Finding::pattern ("race", "atomicity", ...)
  std::string variant;  // reported as Finding::variant
  std::vector<std::string> event_names;  // E (for messages only)
  std::vector<uint32_t> thread;          // T
  std::vector<uint32_t> variable;        // SV
  std::vector<uint32_t> region;          // AR
  std::vector<AccessMatch> access;       // AT
  bool adjacent = false;                 // the events run back to back in the predicted order
  bool unordered = false;   // 2 events in either order; a match lists them in trace order
  bool some_plain = false;  // at least one event is a plain (non-atomic) access
  std::string source;       // "file:line" of its definition
  bool builtin = false;     // a built-in family's (builtin_patterns.cpp): never work-bounded
  // Structure derived from the sequences.
  uint32_t thread_count = 0;
  uint32_t variable_count = 0;
  uint32_t region_count = 0;

  size_t size() const { return access.size(); }
};

// Parses pattern text (grammar in analyzer/PATTERNS.md). `source` names the text in error
// messages: errors throw PecanError("<source>:<line>: <what>").
std::vector<Pattern> ParsePatterns(std::string_view text, const std::string& source);
std::vector<Pattern> ParsePatternFile(const std::string& path);

// "R-W-R"-style default variant from the access types.
std::string DefaultVariant(const std::vector<AccessMatch>& access);

}  // namespace pecan
