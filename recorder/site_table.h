// Interning of code addresses into the trace's site table: each distinct return address gets
// a dense SiteId, stored as module + offset so it survives address-space randomization.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "recorder/module_map.h"
#include "trace_format/trace.h"

namespace pecan::rt {

class SiteTable {
 public:
  // Called for every module and every site the first time it is seen, so the trace writer
  // gets each table entry before the first event that uses it.
  using ModuleSink = std::function<void(const LoadedModule&)>;
  using SiteSink = std::function<void(SiteId, const SiteInfo&)>;

  SiteTable(ModuleSink on_module, SiteSink on_site);

  // Announces the modules loaded right now (call once at start).
  void ScanModules();

  SiteId Intern(uint64_t pc) {
    CacheEntry& entry = cache_[(pc ^ (pc >> 12)) & (kCacheEntries - 1)];
    if (entry.pc == pc) return entry.site;
    SiteId site = InternSlow(pc);
    entry = CacheEntry{pc, site};
    return site;
  }

  size_t size() const { return by_pc_.size(); }

 private:
  SiteId InternSlow(uint64_t pc);

  static constexpr size_t kCacheEntries = 4096;  // direct-mapped; a miss costs a hash lookup
  struct CacheEntry {
    uint64_t pc = UINT64_MAX;  // empty: no return address is in the top page of the address space
    SiteId site = 0;
  };
  std::array<CacheEntry, kCacheEntries> cache_{};
  std::unordered_map<uint64_t, SiteId> by_pc_;
  ModuleMap modules_;
  ModuleSink on_module_;
  SiteSink on_site_;
};

}  // namespace pecan::rt
