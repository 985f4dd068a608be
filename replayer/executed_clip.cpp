// BuildExecutedClip: runs of the executed events, and the modules, sites and threads they name.
#include "replayer/executed_clip.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "trace_format/clip_file.h"

namespace pecan::replay {
namespace {

class SiteTable {
 public:
  SiteTable(proto::Clip& clip, SiteLocator& locator) : clip_(clip), locator_(locator) {}

  uint32_t SiteOf(uint64_t pc) {
    auto known = site_by_pc_.find(pc);
    if (known != site_by_pc_.end()) return known->second;
    uint32_t module = 0;
    uint64_t offset = pc;
    SiteLocator::PcModule where;
    if (locator_.ModuleOf(pc, where)) {
      module = ModuleId(where);
      offset = pc - where.load_address;
    }
    const uint32_t id = static_cast<uint32_t>(clip_.sites_size());
    proto::Site* site = clip_.add_sites();
    site->set_id(id);
    site->set_module(module);
    site->set_offset(offset);
    site_by_pc_.emplace(pc, id);
    return id;
  }

 private:
  uint32_t ModuleId(const SiteLocator::PcModule& where) {
    auto known = module_by_path_.find(where.path);
    if (known != module_by_path_.end()) return known->second;
    const uint32_t id = static_cast<uint32_t>(clip_.modules_size()) + 1;  // 0: no module
    proto::Module* module = clip_.add_modules();
    module->set_id(id);
    module->set_path(where.path);
    module->set_load_address(where.load_address);
    module->set_build_id(where.build_id);
    module_by_path_.emplace(where.path, id);
    return id;
  }

  proto::Clip& clip_;
  SiteLocator& locator_;
  std::unordered_map<uint64_t, uint32_t> site_by_pc_;
  std::map<std::string, uint32_t> module_by_path_;
};

}  // namespace

proto::Clip BuildExecutedClip(const proto::Clip& source, const ReplaySchedule& schedule,
                              const ExecutionLog& log, SiteLocator& locator,
                              const std::string& why) {
  proto::Clip clip;
  clip.set_trace_hash(source.trace_hash());
  clip.set_program(source.program());
  *clip.mutable_args() = source.args();
  *clip.mutable_settings() = source.settings();
  // The finding it came from, by name only: the run's clip proves no anomaly of its own.
  clip.mutable_finding()->set_id(source.finding().id());
  clip.mutable_finding()->set_pattern(source.finding().pattern());
  clip.mutable_finding()->set_variant(source.finding().variant());
  clip.set_generator(
      std::string(kExecutedClipGenerator) +
      (source.finding().id().empty() ? std::string("a clip") : source.finding().id()) +
      (why.empty() ? std::string() : ": " + why));

  std::vector<ExecutionLog::ThreadPath> threads = log.threads();
  std::sort(threads.begin(), threads.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  for (const ExecutionLog::ThreadPath& path : threads) {
    proto::ThreadInfo* info = clip.add_threads();
    info->set_id(path.id);
    if (path.parent != kNoThread) info->set_parent(path.parent);
    info->set_ordinal(path.ordinal);
    info->set_name(path.id < schedule.threads.size() ? schedule.threads[path.id].name
                                                     : "T" + std::to_string(path.id));
  }

  SiteTable sites(clip, locator);
  const uint64_t steps = log.size();
  for (uint64_t i = 0; i < steps; ++i) {
    const ExecutionLog::Entry& entry = log.at(i);
    const int runs = clip.run_thread_size();
    if (runs == 0 || clip.run_thread(runs - 1) != entry.thread) {
      clip.add_run_thread(entry.thread);
      clip.add_run_length(0);
    }
    clip.set_run_length(clip.run_length_size() - 1,
                        clip.run_length(clip.run_length_size() - 1) + 1);
    clip.add_step_kind(static_cast<uint32_t>(entry.kind));
    clip.add_step_site(sites.SiteOf(entry.pc));
    clip.add_step_origin(i);  // no recorded trace: the step's position in the run itself
  }
  return clip;
}

}  // namespace pecan::replay
