// The healing monitor (heal_sections.h): which accesses are healed, the per-thread hold of one
// healing lock, and the counts written at exit.
#include "recorder/heal_sections.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "recorder/code_address.h"
#include "recorder/healing_lock.h"
#include "recorder/runtime_messages.h"
#include "recorder/thread_state.h"

namespace pecan::rt {
namespace {

// Healing locks, chosen by the location's 8-byte granule.
constexpr int kStripes = 64;
// Accesses that are not healed after which a held healing lock that only read is let go.
constexpr uint32_t kMaxOtherAccesses = 16;
// How long a thread waits for a healing lock before it goes on without it.
constexpr int64_t kGiveUpNs = 1'000'000'000;
// Locations (8-byte granules) learned from the listed sites' accesses; when full, further ones
// are not learned (those accesses are still healed by their site).
constexpr int kLearnedGranules = 4096;
constexpr int kLearnedProbes = 8;

struct ListedSite {
  std::string module;
  uint64_t offset = 0;
  uint64_t pc = 0;  // 0: the module is not loaded
};

struct Variable {
  uint64_t addr = 0;
  uint64_t size = 0;
};

struct HealSettings {
  std::vector<ListedSite> listed;     // in the order of PECAN_HEAL
  std::vector<uint64_t> pcs;          // sorted, unique, resolved
  std::atomic<uint64_t>* pc_engaged;  // per entry of `pcs`
  std::vector<Variable> variables;    // resolved
  std::string stats_path;             // empty: no counts written
};

HealSettings* settings = nullptr;
HealingLock healing_locks[kStripes];
std::atomic<uint64_t> learned[kLearnedGranules];
std::atomic<uint64_t> other_engaged{0};
std::atomic<uint64_t> gave_up{0};

// The calling thread's hold: the stripe it holds (-1: none), whether its section wrote, and
// how many accesses that are not healed came since.
struct HealHold {
  int32_t stripe = -1;
  bool wrote = false;
  uint32_t others = 0;
};
thread_local constinit HealHold hold __attribute__((tls_model("initial-exec")));

const char* Env(const char* name) {
  const char* value = getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

// The index of `pc` in settings->pcs, or -1.
int ListedIndex(uint64_t pc) {
  const std::vector<uint64_t>& pcs = settings->pcs;
  const auto found = std::lower_bound(pcs.begin(), pcs.end(), pc);
  return found != pcs.end() && *found == pc ? int(found - pcs.begin()) : -1;
}

bool Learned(uint64_t granule) {
  for (int probe = 0; probe < kLearnedProbes; ++probe) {
    const uint64_t value =
        learned[(granule + probe) % kLearnedGranules].load(std::memory_order_relaxed);
    if (value == granule + 1) return true;
    if (value == 0) return false;
  }
  return false;
}

void Learn(uint64_t granule) {
  for (int probe = 0; probe < kLearnedProbes; ++probe) {
    std::atomic<uint64_t>& cell = learned[(granule + probe) % kLearnedGranules];
    uint64_t expected = 0;
    if (cell.load(std::memory_order_relaxed) == granule + 1) return;
    if (cell.compare_exchange_strong(expected, granule + 1) || expected == granule + 1) return;
  }
}

bool OnListedVariable(uint64_t addr, uint64_t size) {
  for (const Variable& v : settings->variables)
    if (addr < v.addr + v.size && v.addr < addr + size) return true;
  return false;
}

int StripeOf(uint64_t granule) {
  return int((granule * 0x9E3779B97F4A7C15ull) >> 58);  // the top 6 bits: kStripes == 64
}

void ReleaseHeld() {
  if (hold.stripe < 0) return;
  healing_locks[hold.stripe].Release();
  hold.stripe = -1;
}

void Count(int listed_index) {
  if (listed_index >= 0) {
    settings->pc_engaged[listed_index].fetch_add(1, std::memory_order_relaxed);
  } else {
    other_engaged.fetch_add(1, std::memory_order_relaxed);
  }
}

void ReadHealFile(const char* path) {
  std::ifstream in(path);
  if (!in) {
    RuntimeMessage("cannot read PECAN_HEAL ", path, "; nothing is healed");
    return;
  }
  std::string line;
  int unresolved = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string word, module, offset_text;
    if (!(fields >> word >> module >> offset_text)) continue;
    const uint64_t offset = strtoull(offset_text.c_str(), nullptr, 16);
    const uint64_t address = ResolveModuleOffset(module, offset);
    if (address == 0) ++unresolved;
    if (word == "site") {
      settings->listed.push_back(ListedSite{module, offset, address});
      if (address != 0) settings->pcs.push_back(address);
    } else if (word == "variable") {
      uint64_t size = 0;
      if (!(fields >> size) || size == 0) continue;
      if (address != 0) settings->variables.push_back(Variable{address, size});
    }
  }
  if (unresolved > 0)
    RuntimeMessage("PECAN_HEAL names ", std::to_string(unresolved).c_str(),
                   " item(s) in modules that are not loaded; those are not healed");
  std::sort(settings->pcs.begin(), settings->pcs.end());
  settings->pcs.erase(std::unique(settings->pcs.begin(), settings->pcs.end()), settings->pcs.end());
  settings->pc_engaged = new std::atomic<uint64_t>[settings->pcs.size() + 1]();
}

void WriteStats(int, void*) {
  RuntimeScope scope;
  const int fd = open(settings->stats_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  uint64_t engaged = other_engaged.load();
  for (size_t i = 0; i < settings->pcs.size(); ++i) engaged += settings->pc_engaged[i].load();
  std::string text =
      "engaged " + std::to_string(engaged) + "\ngave_up " + std::to_string(gave_up.load()) + "\n";
  for (const ListedSite& site : settings->listed) {
    const int index = site.pc != 0 ? ListedIndex(site.pc) : -1;
    char offset[32];
    snprintf(offset, sizeof(offset), "%llx", static_cast<unsigned long long>(site.offset));
    text += "site " + site.module + " " + offset + " " +
            std::to_string(index >= 0 ? settings->pc_engaged[index].load() : 0) + "\n";
  }
  text += "other " + std::to_string(other_engaged.load()) + "\n";
  [[maybe_unused]] ssize_t written = write(fd, text.data(), text.size());
  close(fd);
}

}  // namespace

bool StartHealMonitor() {
  const char* path = Env("PECAN_HEAL");
  if (path == nullptr) {
    RuntimeMessage("PECAN_MODE=heal without PECAN_HEAL; running unhealed");
    return false;
  }
  settings = new HealSettings;
  ReadHealFile(path);
  if (settings->pc_engaged == nullptr) return false;
  if (const char* stats = Env("PECAN_HEAL_STATS")) {
    settings->stats_path = stats;
    on_exit(WriteStats, nullptr);
  }
  return true;
}

void HealOnAccess(ThreadState& t, EventKind kind, uint64_t addr, uint64_t size, uint64_t pc) {
  const uint64_t granule = addr >> 3;
  const int listed_index = ListedIndex(pc);
  if (listed_index >= 0) {
    Learn(granule);
  } else if (!OnListedVariable(addr, size) && !Learned(granule)) {
    // Not healed: a held lock whose section wrote has done its update; one that only read is
    // kept a little, for the write that may follow a computation.
    if (hold.stripe >= 0 && (hold.wrote || ++hold.others > kMaxOtherAccesses)) {
      const uint32_t saved = t.gates;
      t.gates = 0;
      CompilerBarrier();
      ReleaseHeld();
      CompilerBarrier();
      t.gates = saved;
    }
    return;
  }
  const bool write = kind == EventKind::kWrite;
  const int stripe = StripeOf(granule);
  if (hold.stripe == stripe && !hold.wrote && write) {
    hold.wrote = true;  // the write completes the read's update
    hold.others = 0;
    Count(listed_index);
    return;
  }
  const uint32_t saved = t.gates;
  t.gates = 0;  // the monitor's own waiting is not the program's
  CompilerBarrier();
  ReleaseHeld();
  if (healing_locks[stripe].Acquire(kGiveUpNs)) {
    hold.stripe = stripe;
    hold.wrote = write;
    hold.others = 0;
    Count(listed_index);
  } else {
    gave_up.fetch_add(1, std::memory_order_relaxed);
  }
  CompilerBarrier();
  t.gates = saved;
}

void HealOnEvent(ThreadState& t, EventKind, uint64_t) {
  if (hold.stripe < 0) return;
  const uint32_t saved = t.gates;
  t.gates = 0;
  CompilerBarrier();
  ReleaseHeld();
  CompilerBarrier();
  t.gates = saved;
}

void HealOnThreadEnd(ThreadState& t) {
  HealOnEvent(t, EventKind::kThreadEnd, 0);
}

}  // namespace pecan::rt
