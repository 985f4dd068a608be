// What `pecan heal` heals, read from a report: the instructions (module + offset) and named
// globals of races in an analyze JSON report (through its trace) or in a fuzz.json, and the
// PECAN_HEAL file the runtime reads them from (recorder/heal_sections.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pecan::workflow {

struct HealSite {
  std::string module;
  uint64_t offset = 0;
  std::string where;  // "file.c:15" when known, else the report's text for it
};

struct HealVariable {
  std::string module;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string name;
};

struct HealTargets {
  std::vector<HealSite> sites;  // without duplicates
  std::vector<HealVariable> variables;
};

// Reads `report_path`: an analyze JSON report (its race and atomicity findings, or only the
// finding `race_id` when not empty) or a fuzz.json (every run's races). Throws PecanError with
// one line naming the file and what is wrong: missing, not JSON, no race, the trace behind an
// analyze report gone, sites without module + offset, a module that does not exist.
HealTargets ReadHealTargets(const std::string& report_path, const std::string& race_id);

// The PECAN_HEAL file's text: "site MODULE OFFSET" and "variable MODULE OFFSET SIZE" lines.
std::string HealFileText(const HealTargets& targets);

}  // namespace pecan::workflow
