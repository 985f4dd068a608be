#include "workflow/suppressions_file.h"

#include <iostream>
#include <vector>

#include "trace_format/error.h"
#include "workflow/finding_summary.h"

namespace pecan::workflow {

std::shared_ptr<const Suppressions> LoadSuppressions(const std::string& path,
                                                     const std::string& command) {
  if (path.empty()) return nullptr;
  std::vector<std::string> warnings;
  try {
    auto suppressions = std::make_shared<const Suppressions>(Suppressions::Read(path, &warnings));
    for (const auto& warning : warnings) std::cerr << "pecan: warning: " << warning << "\n";
    return suppressions;
  } catch (const PecanError& e) {
    throw PecanError(command + ": --suppressions " + e.what());
  }
}

std::string SuppressionsDigest(const Suppressions* suppressions) {
  if (suppressions == nullptr || suppressions->rules().empty()) return "";
  std::string text;
  for (const auto& rule : suppressions->rules()) text += rule.type + ":" + rule.pattern + "\n";
  return HexString(StableDigest(text));
}

}  // namespace pecan::workflow
