#include "workflow/fuzz_drfinder.h"

namespace pecan::workflow {

proto::Clip WriteMayTriggerInput(const MayTriggerRelations& relations, const Trace& trace,
                                 proto::Clip start, uint32_t depth, const std::string& input_path) {
  start.clear_modules();
  std::map<std::string, uint32_t> module_by_name;
  for (const ModuleInfo& m : trace.modules) {
    proto::Module* module = start.add_modules();
    module->set_id(m.id);
    module->set_path(m.path);
    module->set_load_address(m.load_address);
    module->set_build_id(m.build_id);
    const size_t slash = m.path.find_last_of('/');
    module_by_name.emplace(slash == std::string::npos ? m.path : m.path.substr(slash + 1), m.id);
  }
  uint32_t next_site = 1;  // 0 is the start clip's own
  std::map<std::string, uint32_t> site_of_key;
  // "app+0x1a2f" -> a clip site, when the module is one of the trace's.
  auto site = [&](const std::string& key) -> std::optional<uint32_t> {
    if (auto known = site_of_key.find(key); known != site_of_key.end()) return known->second;
    const size_t plus = key.rfind("+0x");
    if (plus == std::string::npos) return std::nullopt;
    auto module = module_by_name.find(key.substr(0, plus));
    if (module == module_by_name.end()) return std::nullopt;
    proto::Site* s = start.add_sites();
    s->set_id(next_site);
    s->set_module(module->second);
    s->set_offset(std::stoull(key.substr(plus + 3), nullptr, 16));
    site_of_key.emplace(key, next_site);
    return next_site++;
  };
  std::map<std::string, uint32_t> function_ids, class_ids;
  auto id = [](std::map<std::string, uint32_t>& ids, const std::string& key) {
    return ids.try_emplace(key, static_cast<uint32_t>(ids.size())).first->second;
  };
  std::ofstream out(input_path);
  out << "D " << depth << "\n";
  for (const auto& [function, classes] : relations.ByFunction()) {
    for (const std::string& lock_class : classes) {
      out << "R " << id(function_ids, function) << " " << id(class_ids, lock_class) << "\n";
      if (lock_class.rfind("alloc@", 0) == 0) {
        if (auto s = site(lock_class.substr(6)))
          out << "A " << *s << " " << class_ids[lock_class] << "\n";
      }
    }
    // A function without a symbol is known by its entry's code-address key.
    if (auto s = site(function)) out << "F " << *s << " " << function_ids[function] << "\n";
  }
  for (const auto& [entry, function] : relations.EntrySites()) {
    auto known = function_ids.find(function);
    if (known == function_ids.end()) continue;
    if (auto s = site(entry)) out << "F " << *s << " " << known->second << "\n";
  }
  for (const auto& [address, lock_class] : relations.GlobalLocks()) {
    auto known = class_ids.find(lock_class);
    if (known == class_ids.end()) continue;
    if (auto s = site(address)) out << "G " << *s << " " << known->second << "\n";
  }
  if (!out) throw PecanError("fuzz: cannot write " + input_path);
  start.set_generator("fuzz start (drfinder)");
  return start;
}

}  // namespace pecan::workflow
