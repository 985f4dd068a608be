// MayTriggerKeys: the function and lock-class keys of may_trigger_keys.h, from the trace's module
// and name tables, the symbolizer, and the heap blocks live at each lock acquisition.
#include "analyzer/may_trigger_keys.h"

#include <cstdio>

namespace pecan {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string CodeAddressKey(const std::string& module, uint64_t offset) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(offset));
  return module + hex;
}

std::string ModuleName(const Trace& trace, const ModuleInfo& module) {
  return BaseName(module.path.empty() ? trace.meta.program : module.path);
}

// "table+16" -> "table": a class is the whole global, whatever element holds the lock.
std::string WithoutOffset(std::string name) {
  const size_t plus = name.find_last_of('+');
  if (plus == std::string::npos || plus + 1 == name.size()) return name;
  for (size_t k = plus + 1; k < name.size(); ++k) {
    if (name[k] < '0' || name[k] > '9') return name;
  }
  name.resize(plus);
  return name;
}

}  // namespace

std::string SiteKey(const Trace& trace, SiteId site) {
  if (site >= trace.sites.size()) return CodeAddressKey("loc", site);
  const SiteInfo& info = trace.sites[site];
  if (info.module != kNoModule) {
    for (const ModuleInfo& module : trace.modules) {
      if (module.id == info.module) return CodeAddressKey(ModuleName(trace, module), info.offset);
    }
  }
  return CodeAddressKey("loc", info.offset);
}

MayTriggerKeys::MayTriggerKeys(const Trace& trace, Symbolizer& symbolizer)
    : trace_(trace), symbolizer_(symbolizer) {}

const std::string& MayTriggerKeys::FunctionKey(EventIndex entry) {
  const uint64_t address = trace_.addr[entry];
  if (address != 0) {
    auto [it, inserted] = function_by_address_.try_emplace(address);
    if (inserted) {
      auto name = symbolizer_.NameOfAddress(address);
      it->second = name ? *name : "function@" + std::to_string(address);
    }
    return it->second;
  }
  const SiteId site = trace_.site[entry];
  auto [it, inserted] = function_by_site_.try_emplace(site);
  if (inserted) {
    std::string function = symbolizer_.Resolve(site).function;
    it->second = function.empty() ? SiteKey(trace_, site) : std::move(function);
  }
  return it->second;
}

std::string MayTriggerKeys::LockClassKey(uint64_t lock) {
  auto [global, inserted] = global_by_address_.try_emplace(lock);
  if (inserted) {
    auto name = symbolizer_.NameOfAddress(lock);
    if (name) global->second = WithoutOffset(std::move(*name));
  }
  if (global->second) return *global->second;
  auto after = blocks_.upper_bound(lock);
  if (after != blocks_.begin()) {
    const auto& [base, block] = *std::prev(after);
    if (lock < block.end) return "alloc@" + SiteKey(trace_, block.site);
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "lock@0x%llx", static_cast<unsigned long long>(lock));
  return hex;
}

std::optional<std::string> MayTriggerKeys::GlobalAddressKey(uint64_t address) const {
  const ModuleInfo* holder = nullptr;
  for (const ModuleInfo& module : trace_.modules) {
    if (module.load_address <= address &&
        (holder == nullptr || module.load_address > holder->load_address)) {
      holder = &module;
    }
  }
  if (holder == nullptr) return std::nullopt;
  return CodeAddressKey(ModuleName(trace_, *holder), address - holder->load_address);
}

void MayTriggerKeys::OnAlloc(uint64_t base, uint64_t size, SiteId site) {
  blocks_[base] = Block{base + std::max<uint64_t>(size, 1), site};
}

void MayTriggerKeys::OnFree(uint64_t base) {
  blocks_.erase(base);
}

std::vector<LockAcquisitionClass> LockAcquisitionClasses(const Trace& trace,
                                                         Symbolizer& symbolizer) {
  MayTriggerKeys keys(trace, symbolizer);
  std::vector<LockAcquisitionClass> out;
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    const EventKind kind = trace.kind[i];
    if (kind == EventKind::kAlloc) {
      keys.OnAlloc(trace.addr[i], trace.size[i], trace.site[i]);
    } else if (kind == EventKind::kFree) {
      keys.OnFree(trace.addr[i]);
    } else if (IsAcquire(kind)) {
      out.push_back(LockAcquisitionClass{i, keys.LockClassKey(trace.addr[i])});
    }
  }
  return out;
}

}  // namespace pecan
