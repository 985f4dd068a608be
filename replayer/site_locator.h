// Where a clip's sites (module + offset) are in this process: the replayer compares each
// event's raw PC with the PC its step expects, so the mapping must be the recorder's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replayer/replay_schedule.h"

namespace pecan::replay {

class SiteLocator {
 public:
  virtual ~SiteLocator() = default;
  // Fills runtime_pc[i] with where schedule.sites[i] is now (0 when its module is not loaded).
  // Called again after a mismatch, in case a module was loaded since (dlopen).
  virtual void Locate(const ReplaySchedule& schedule, std::vector<uint64_t>& runtime_pc) = 0;
  // A runtime PC as "module+0xOFFSET" (or "0x..." outside every module), for messages.
  virtual std::string DescribePc(uint64_t pc) = 0;

  // The module that holds a runtime PC, as a clip stores it, for writing the clip of the run
  // being replayed. False when the PC lies outside every module (a clip stores it as is).
  struct PcModule {
    std::string path;
    std::string build_id;  // raw bytes
    uint64_t load_address = 0;
  };
  virtual bool ModuleOf(uint64_t /*pc*/, PcModule& /*module*/) { return false; }
};

}  // namespace pecan::replay
