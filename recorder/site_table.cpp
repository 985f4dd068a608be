// The slow path of site interning: a hash lookup, then module resolution, rescanning the
// loaded objects once when an address lies outside every known module (a later dlopen).
#include "recorder/site_table.h"

namespace pecan::rt {

SiteTable::SiteTable(ModuleSink on_module, SiteSink on_site)
    : on_module_(std::move(on_module)), on_site_(std::move(on_site)) {}

void SiteTable::ScanModules() {
  for (const LoadedModule* module : modules_.Refresh()) on_module_(*module);
}

SiteId SiteTable::InternSlow(uint64_t pc) {
  auto found = by_pc_.find(pc);
  if (found != by_pc_.end()) return found->second;

  const LoadedModule* module = modules_.Find(pc);
  if (module == nullptr) {
    ScanModules();
    module = modules_.Find(pc);
  }
  SiteInfo info;
  if (module != nullptr) {
    info.module = module->id;
    info.offset = pc - module->load_address;
  } else {
    info.module = kNoModule;  // code outside every ELF object (JIT): the absolute address
    info.offset = pc;
  }
  SiteId site = static_cast<SiteId>(by_pc_.size());
  by_pc_.emplace(pc, site);
  on_site_(site, info);
  return site;
}

}  // namespace pecan::rt
