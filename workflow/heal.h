// `pecan heal`'s run: the program run with the runtime in heal mode, which serializes the accesses
// of the races a report names through extra locks (AtomRace's healing, recorder/heal_sections.h).
#pragma once

#include <string>
#include <vector>

namespace pecan::workflow {

struct HealOptions {
  std::string report;
  std::string race_id;
  bool quiet = false;
  std::vector<std::string> command;
};

// Runs the program healed and says on stderr how often healing engaged (unless quiet). Returns the
// program's exit status (128 + the signal when one killed it).
int RunHeal(HealOptions options);

}  // namespace pecan::workflow
