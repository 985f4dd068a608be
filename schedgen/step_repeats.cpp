// StepRepeatDistances: per thread, an open-addressing table of the accesses of its current epoch.
// An entry of an older epoch counts as empty, so a new epoch costs nothing and the table only
// grows to the largest epoch; one probe sequence per plain access.
#include "schedgen/step_repeats.h"

#include <algorithm>
#include <vector>

namespace pecan {
namespace {

struct AccessKey {
  uint64_t addr = 0;
  uint32_t size = 0;
  SiteId site = 0;
  EventKind kind = EventKind::kRead;
  bool operator==(const AccessKey&) const = default;
};

uint64_t Hash(const AccessKey& k) {
  uint64_t h = k.addr * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t{k.site} << 8 | static_cast<uint64_t>(k.kind)) * 0xC2B2AE3D27D4EB4Full;
  h ^= uint64_t{k.size} * 0x165667B19E3779F9ull;
  return h ^ (h >> 29);
}

// The first step of each access in one thread's current epoch.
class EpochAccessTable {
 public:
  // The step that first made `key` in the current epoch; records `step` when there is none.
  // Epochs are numbered from 1 (an entry's epoch 0 means empty).
  uint64_t FirstStep(const AccessKey& key, uint64_t epoch, uint64_t step) {
    if (epoch != epoch_) {
      epoch_ = epoch;
      live_ = 0;
    }
    if ((live_ + 1) * 2 > entries_.size()) Grow();
    const uint64_t mask = entries_.size() - 1;
    for (uint64_t slot = Hash(key) & mask;; slot = (slot + 1) & mask) {
      Entry& entry = entries_[slot];
      if (entry.epoch != epoch_) {
        entry = Entry{key, epoch_, step};
        ++live_;
        return step;
      }
      if (entry.key == key) return entry.step;
    }
  }

 private:
  struct Entry {
    AccessKey key;
    uint64_t epoch = 0;
    uint64_t step = 0;
  };

  // Doubles the table (at least 16 entries), keeping the current epoch's entries.
  void Grow() {
    std::vector<Entry> old = std::move(entries_);
    entries_.assign(std::max<size_t>(16, old.size() * 2), Entry{});
    const uint64_t mask = entries_.size() - 1;
    for (const Entry& entry : old) {
      if (entry.epoch != epoch_) continue;
      uint64_t slot = Hash(entry.key) & mask;
      while (entries_[slot].epoch == epoch_) slot = (slot + 1) & mask;
      entries_[slot] = entry;
    }
  }

  std::vector<Entry> entries_;  // a power of two in size, at most half live
  uint64_t epoch_ = 0;
  uint64_t live_ = 0;  // entries of epoch_
};

}  // namespace

std::vector<uint64_t> StepRepeatDistances(const Trace& trace,
                                          const std::vector<EventIndex>& steps) {
  std::vector<uint64_t> distance(steps.size(), 0);
  std::vector<uint64_t> epoch(trace.threads.size(), 1);
  std::vector<EpochAccessTable> tables(trace.threads.size());
  for (uint64_t s = 0; s < steps.size(); ++s) {
    const EventIndex e = steps[s];
    const ThreadId t = trace.thread[e];
    if (t >= epoch.size()) {
      epoch.resize(t + 1, 1);
      tables.resize(t + 1);
    }
    if (!IsPlainAccess(trace.kind[e])) {
      ++epoch[t];  // every other event of the thread ends its epoch, as in the recorder
      continue;
    }
    const AccessKey key{trace.addr[e], trace.size[e], trace.site[e], trace.kind[e]};
    distance[s] = s - tables[t].FirstStep(key, epoch[t], s);
  }
  return distance;
}

}  // namespace pecan
