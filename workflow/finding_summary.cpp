#include "workflow/finding_summary.h"

namespace pecan::workflow {

std::string HexString(uint64_t value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%0*llx", digits, static_cast<unsigned long long>(value));
  return text;
}

uint64_t StableDigest(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

bool SummaryOrder(const SummaryFinding& a, const SummaryFinding& b) {
  auto rank = [](const SummaryFinding& f) {
    if (f.verdict.outcome == "exposed") return 0;
    if (f.verdict.confirmed()) return f.verdict.failure.empty() ? 1 : 0;
    if (f.verdict.outcome.empty()) return 2;
    if (f.verdict.outcome == "infeasible") return 3;
    return 4;
  };
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  if (a.pattern != b.pattern) return a.pattern < b.pattern;
  return a.key < b.key;
}

}  // namespace pecan::workflow
