// Finding ids: FNV-1a over the parts that identify a bug in the source, printed as 8 hex digits.
#include "analyzer/finding_id.h"

#include <cstdio>

namespace pecan {
namespace {

class Fnv1a {
 public:
  void Add(const std::string& s) {
    for (unsigned char c : s) Byte(c);
    Byte(0);
  }
  void Add(uint64_t v) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<unsigned char>(v >> (8 * i)));
  }
  uint64_t value() const { return h_; }

 private:
  void Byte(unsigned char c) { h_ = (h_ ^ c) * 0x100000001b3ull; }
  uint64_t h_ = 0xcbf29ce484222325ull;
};

std::string ModuleName(const Trace& trace, uint32_t module) {
  if (module == kNoModule) return "";
  for (const ModuleInfo& m : trace.modules) {
    if (m.id != module) continue;
    const size_t slash = m.path.find_last_of('/');
    return slash == std::string::npos ? m.path : m.path.substr(slash + 1);
  }
  return "module" + std::to_string(module);
}

}  // namespace

std::string MakeFindingId(const Trace& trace, const Finding& finding) {
  Fnv1a h;
  h.Add(finding.pattern);
  h.Add(finding.variant);
  for (EventIndex e : finding.events) {
    const SiteId site = trace.site[e];
    if (site < trace.sites.size()) {
      h.Add(ModuleName(trace, trace.sites[site].module));
      h.Add(trace.sites[site].offset);
    } else {
      h.Add(uint64_t{site});
    }
  }
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(h.value() ^ (h.value() >> 32)));
  return finding.pattern + "-" + hex;
}

}  // namespace pecan
