// StepRepeatDistances: one hash map keyed by the thread's epoch and the access, never cleared
// (a new epoch simply makes new keys), so the cost is one lookup per plain access.
#include "schedgen/step_repeats.h"

#include <unordered_map>

namespace pecan {
namespace {

struct AccessKey {
  uint64_t epoch;  // per thread: how many non-access events it had before
  uint64_t addr;
  uint32_t size;
  SiteId site;
  ThreadId thread;
  EventKind kind;
  bool operator==(const AccessKey&) const = default;
};

struct AccessKeyHash {
  size_t operator()(const AccessKey& k) const {
    uint64_t h = k.addr * 0x9E3779B97F4A7C15ull;
    h ^= (k.epoch + (uint64_t{k.thread} << 40)) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t{k.site} << 8 | static_cast<uint64_t>(k.kind)) * 0x165667B19E3779F9ull;
    h ^= k.size;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

}  // namespace

std::vector<uint64_t> StepRepeatDistances(const Trace& trace,
                                          const std::vector<EventIndex>& steps) {
  std::vector<uint64_t> distance(steps.size(), 0);
  std::vector<uint64_t> epoch(trace.threads.size(), 0);
  std::unordered_map<AccessKey, uint64_t, AccessKeyHash> first_step;
  for (uint64_t s = 0; s < steps.size(); ++s) {
    const EventIndex e = steps[s];
    const ThreadId t = trace.thread[e];
    if (t >= epoch.size()) epoch.resize(t + 1, 0);
    if (!IsPlainAccess(trace.kind[e])) {
      ++epoch[t];  // every other event of the thread ends its epoch, as in the recorder
      continue;
    }
    const AccessKey key{epoch[t], trace.addr[e], trace.size[e], trace.site[e], t, trace.kind[e]};
    const auto [it, inserted] = first_step.try_emplace(key, s);
    if (!inserted) distance[s] = s - it->second;
  }
  return distance;
}

}  // namespace pecan
