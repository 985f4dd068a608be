// Built-in patterns as pattern-language text: the same parser and engine serve them and users'.
#include "analyzer/builtin_patterns.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "trace_format/error.h"

namespace pecan {

const std::string& BuiltinPatternText() {
  static const std::string kText = R"PATTERNS(
# Data race (PECAN section 3): two accesses to one location by different threads, at least
# one a write and at least one not atomic, that can run back to back. Listed in trace order,
# so the variant names the recorded order ("W-R": the write ran first).
pattern race variant "W-W" { T: t1 t2; SV: s s; AR: u1 u2; AT: w w; adjacent; unordered; some-plain; }
pattern race variant "W-R" { T: t1 t2; SV: s s; AR: u1 u2; AT: w r; adjacent; unordered; some-plain; }
pattern race variant "R-W" { T: t1 t2; SV: s s; AR: u1 u2; AT: r w; adjacent; unordered; some-plain; }

# Atomicity violation (PECAN section 3; Lu et al.'s unserializable interleavings, as in AVIO):
# two consecutive accesses of one atomic region to a location, and between them an access by
# another thread that makes the three unserializable.
pattern atomicity variant "R-W-R" { T: t1 t2 t1; SV: s s s; AR: u v u; AT: r w r; }
pattern atomicity variant "W-W-R" { T: t1 t2 t1; SV: s s s; AR: u v u; AT: w w r; }
pattern atomicity variant "W-R-W" { T: t1 t2 t1; SV: s s s; AR: u v u; AT: w r w; }
pattern atomicity variant "R-W-W" { T: t1 t2 t1; SV: s s s; AR: u v u; AT: r w w; }

# Atomic-set serializability violations: the eleven problematic interleavings of Vaziri, Tip
# and Dolby, "Associating synchronization constraints with data in an object-oriented
# language", POPL 2006 (also Hammer, Dolby, Vaziri, Tip, ICSE 2008, which numbers them
# differently). u is a unit of work (atomic region), u' = v the unit interleaving it; every
# location accessed in one region belongs to one atomic set. One location (' marks u'):
pattern asv variant "R W' W" { T: t1 t2 t1; SV: l1 l1 l1; AR: u v u; AT: r w w; }
pattern asv variant "R W' R" { T: t1 t2 t1; SV: l1 l1 l1; AR: u v u; AT: r w r; }
pattern asv variant "W R' W" { T: t1 t2 t1; SV: l1 l1 l1; AR: u v u; AT: w r w; }
pattern asv variant "W W' R" { T: t1 t2 t1; SV: l1 l1 l1; AR: u v u; AT: w w r; }
pattern asv variant "W W' W" { T: t1 t2 t1; SV: l1 l1 l1; AR: u v u; AT: w w w; }
# Two locations l1, l2 of one atomic set:
pattern asv variant "W(l1) W'(l1) W'(l2) W(l2)" { T: t1 t2 t2 t1; SV: l1 l1 l2 l2; AR: u v v u; AT: w w w w; }
pattern asv variant "W(l1) W'(l2) W'(l1) W(l2)" { T: t1 t2 t2 t1; SV: l1 l2 l1 l2; AR: u v v u; AT: w w w w; }
pattern asv variant "W(l1) R'(l1) R'(l2) W(l2)" { T: t1 t2 t2 t1; SV: l1 l1 l2 l2; AR: u v v u; AT: w r r w; }
pattern asv variant "W(l1) R'(l2) R'(l1) W(l2)" { T: t1 t2 t2 t1; SV: l1 l2 l1 l2; AR: u v v u; AT: w r r w; }
pattern asv variant "R(l1) W'(l1) W'(l2) R(l2)" { T: t1 t2 t2 t1; SV: l1 l1 l2 l2; AR: u v v u; AT: r w w r; }
pattern asv variant "R(l1) W'(l2) W'(l1) R(l2)" { T: t1 t2 t2 t1; SV: l1 l2 l1 l2; AR: u v v u; AT: r w w r; }
)PATTERNS";
  return kText;
}

namespace {

std::vector<Pattern> Family(const std::string& family) {
  std::vector<Pattern> out;
  for (Pattern& p : ParsePatterns(BuiltinPatternText(), "<built-in patterns>")) {
    p.builtin = true;
    if (family == "all" || p.name == family) out.push_back(std::move(p));
  }
  return out;
}

// The items of a spec, trimmed, empty ones left out; an empty spec is "all".
std::vector<std::string> SpecItems(const std::string& spec) {
  std::vector<std::string> out;
  std::istringstream items(spec.empty() ? std::string("all") : spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    const size_t first = item.find_first_not_of(" \t");
    const size_t last = item.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
  }
  return out;
}

}  // namespace

std::vector<Pattern> SelectPatterns(const std::string& spec) {
  std::vector<Pattern> out;
  bool any = false;
  for (const std::string& item : SpecItems(spec)) {
    any = true;
    std::vector<Pattern> selected;
    if (item == "deadlock") {
      continue;  // not a pattern of the language: Analyze runs PredictDeadlocks for it
    } else if (item == "all" || item == "race" || item == "atomicity" || item == "asv") {
      selected = Family(item);
    } else if (std::filesystem::exists(item)) {
      selected = ParsePatternFile(item);
    } else {
      throw PecanError("--patterns: '" + item +
                       "' is neither a built-in family (race, atomicity, asv, deadlock, all) nor a "
                       "pattern file");
    }
    for (Pattern& p : selected) {
      const Pattern* same = nullptr;
      for (const Pattern& q : out) {
        if (q.name == p.name && q.variant == p.variant) same = &q;
      }
      if (same == nullptr) {
        out.push_back(std::move(p));
      } else if (same->source != p.source) {
        // Findings are told apart by pattern name and variant, so these must be unique.
        throw PecanError(p.source + ": pattern '" + p.name + "' variant '" + p.variant +
                         "' is already defined at " + same->source +
                         " (give one of them a different name or variant)");
      }
    }
  }
  if (!any) return Family("all");
  return out;
}

bool SelectsDeadlocks(const std::string& spec) {
  const std::vector<std::string> items = SpecItems(spec);
  return items.empty() || std::find(items.begin(), items.end(), "all") != items.end() ||
         std::find(items.begin(), items.end(), "deadlock") != items.end();
}

}  // namespace pecan
