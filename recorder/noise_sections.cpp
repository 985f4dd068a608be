// AtomRace's detection and noise (noise_sections.h). Each thread that accesses memory takes a
// slot in a fixed table and publishes its open section there with a sequence lock; a thread
// opening a section publishes first and then reads every other slot, so of two threads whose
// sections overlap in time at least one sees the other (sequentially consistent stores and
// loads: the store-then-load pattern of Dekker's algorithm).
#include "recorder/noise_sections.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "recorder/code_address.h"
#include "recorder/runtime_messages.h"
#include "recorder/spin_lock.h"
#include "recorder/thread_state.h"

namespace pecan::rt {
namespace {

enum class Heuristic : uint8_t { kNone, kRandom, kVariable, kLocation };

struct NoiseSettings {
  Heuristic heuristic = Heuristic::kNone;
  uint32_t frequency = 100;  // per mille of the chosen accesses
  uint32_t strength = 0;     // microseconds of sleep before the yield (0: yield only)
  uint64_t seed = 0;
  int report_fd = -1;
  std::vector<uint64_t> focus;  // sorted instruction addresses (variable, location)
  // User atomic sections from PECAN_NOISE_ATOMIC: functions (entry to exit) and line ranges
  // (from the first access inside to the first access outside), as sorted address ranges.
  std::vector<std::pair<uint64_t, uint64_t>> functions;
  std::vector<std::pair<uint64_t, uint64_t>> lines;
};

NoiseSettings* settings = nullptr;

// Threads that can be monitored at once; more run unmonitored.
constexpr int kSlots = 512;
// Accesses per region and thread whose location the atomicity check follows.
constexpr int kRegionEntries = 32;

inline bool IsWrite(EventKind kind) {
  return kind == EventKind::kWrite;
}

struct RegionEntry {
  uint64_t addr = 0;
  uint64_t size = 0;
  uint64_t last_pc = 0;
  bool last_write = false;
  // An access by another thread since the region's last access to this location.
  uint64_t suspect_pc = 0;
  uint32_t suspect_serial = 0;
  bool suspect_write = false;
  bool has_suspect = false;
};

struct alignas(64) SectionSlot {
  std::atomic<bool> taken{false};
  std::atomic<uint64_t> version{0};  // odd while the owner rewrites the section
  std::atomic<uint64_t> addr{0};     // 0: no open section
  std::atomic<uint64_t> size{0};
  std::atomic<uint64_t> pc{0};
  std::atomic<bool> write{false};
  std::atomic<uint32_t> serial{0};
  // The open region of the owner (pecan_region_begin/end), under `region_lock`.
  std::atomic<uint32_t> region_depth{0};
  bool in_lines = false;  // the owner is inside a line-range section (owner only)
  SpinLock region_lock;
  int region_used = 0;
  RegionEntry region[kRegionEntries];
};

SectionSlot section_slots[kSlots];
std::atomic<int> slots_bound{0};  // no slot at or above this index was ever taken

// Locations the variable heuristic has seen accessed by a focus instruction (8-byte granules).
constexpr int kChosenGranules = 1024;
std::atomic<uint64_t> chosen_granules[kChosenGranules];

// Findings already written (a hash of what identifies each), under `findings_lock`.
constexpr int kFindingTable = 8192;
SpinLock findings_lock;
uint64_t finding_hashes[kFindingTable];
int findings_written = 0;

thread_local uint64_t rng_state __attribute__((tls_model("initial-exec"))) = 0;

uint64_t NextRandom(uint32_t serial) {
  if (rng_state == 0)
    rng_state = (settings->seed + 1) * 0x9E3779B97F4A7C15ull ^ (serial + 1) * 0xBF58476D1CE4E5B9ull;
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

const char* Env(const char* name) {
  const char* value = getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

uint32_t ReadNumber(const char* name, uint32_t fallback, uint32_t high) {
  const char* value = Env(name);
  if (value == nullptr) return fallback;
  char* end = nullptr;
  const unsigned long parsed = strtoul(value, &end, 10);
  if (*end != '\0' || parsed > high) {
    RuntimeMessage(name, " is not a number in the accepted range; using the default");
    return fallback;
  }
  return static_cast<uint32_t>(parsed);
}

// PECAN_NOISE_FOCUS: lines "pc MODULE_PATH OFFSET" (offset in hex); lines for modules not
// loaded are left out.
std::vector<uint64_t> ReadFocus(const char* path) {
  std::vector<uint64_t> focus;
  std::ifstream in(path);
  if (!in) {
    RuntimeMessage("cannot read PECAN_NOISE_FOCUS ", path, "; no instruction is focused");
    return focus;
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string word, module, offset;
    if (!(fields >> word >> module >> offset) || word != "pc") continue;
    const uint64_t address = ResolveModuleOffset(module, strtoull(offset.c_str(), nullptr, 16));
    if (address != 0) focus.push_back(address);
  }
  std::sort(focus.begin(), focus.end());
  return focus;
}

// PECAN_NOISE_ATOMIC: lines "function|lines MODULE_PATH BEGIN END" (offsets in hex), written
// by `pecan fuzz --atomic`.
void ReadAtomicSections(const char* path) {
  std::ifstream in(path);
  if (!in) {
    RuntimeMessage("cannot read PECAN_NOISE_ATOMIC ", path, "; no user atomic sections");
    return;
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind, module, begin, end;
    if (!(fields >> kind >> module >> begin >> end)) continue;
    // Offset 1, not 0: a non-PIE executable loads at 0, and 0 means "not loaded".
    const uint64_t one = ResolveModuleOffset(module, 1);
    if (one == 0) continue;
    const uint64_t base = one - 1;
    const std::pair<uint64_t, uint64_t> range{base + strtoull(begin.c_str(), nullptr, 16),
                                              base + strtoull(end.c_str(), nullptr, 16)};
    if (kind == "function") settings->functions.push_back(range);
    if (kind == "lines") settings->lines.push_back(range);
  }
  std::sort(settings->functions.begin(), settings->functions.end());
  std::sort(settings->lines.begin(), settings->lines.end());
}

bool InRanges(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t pc) {
  auto after = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(pc, ~uint64_t{0}));
  return after != ranges.begin() && pc < std::prev(after)->second;
}

bool Focused(uint64_t pc) {
  return std::binary_search(settings->focus.begin(), settings->focus.end(), pc);
}

bool GranuleChosen(uint64_t granule) {
  for (int probe = 0; probe < 8; ++probe) {
    const uint64_t value =
        chosen_granules[(granule + probe) % kChosenGranules].load(std::memory_order_relaxed);
    if (value == granule + 1) return true;
    if (value == 0) return false;
  }
  return false;
}

void ChooseGranule(uint64_t granule) {
  for (int probe = 0; probe < 8; ++probe) {
    std::atomic<uint64_t>& cell = chosen_granules[(granule + probe) % kChosenGranules];
    uint64_t expected = 0;
    if (cell.compare_exchange_strong(expected, granule + 1) || expected == granule + 1) return;
  }
}

// Appends `line` to the report unless a finding with the same hash was written before.
void WriteFinding(uint64_t hash, const char* line, size_t length) {
  {
    SpinLockGuard guard(findings_lock);
    const uint64_t key = hash | 1;  // 0 marks an empty cell
    for (int probe = 0;; ++probe) {
      if (probe == kFindingTable || findings_written >= kFindingTable / 2) return;
      uint64_t& cell = finding_hashes[(key + probe) % kFindingTable];
      if (cell == key) return;
      if (cell == 0) {
        cell = key;
        ++findings_written;
        break;
      }
    }
  }
  [[maybe_unused]] ssize_t written = write(settings->report_fd, line, length);
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

void ReportRace(uint64_t addr, uint64_t size, uint32_t serial_a, bool write_a, uint64_t pc_a,
                uint32_t serial_b, bool write_b, uint64_t pc_b) {
  // One finding per pair of instructions and kinds, whichever thread came first.
  const uint64_t one = Mix(pc_a, write_a), two = Mix(pc_b, write_b);
  const uint64_t hash = Mix(Mix(0x72616365, std::min(one, two)), std::max(one, two));
  char line[256];
  const int length =
      snprintf(line, sizeof(line), "race %lx %lu %u %c %lx %u %c %lx\n", (unsigned long)addr,
               (unsigned long)size, serial_a, write_a ? 'W' : 'R', (unsigned long)pc_a, serial_b,
               write_b ? 'W' : 'R', (unsigned long)pc_b);
  if (length > 0) WriteFinding(hash, line, static_cast<size_t>(length));
}

void ReportAtomicity(uint64_t addr, uint32_t serial_t, const RegionEntry& entry, bool write_now,
                     uint64_t pc_now) {
  const uint64_t hash =
      Mix(Mix(Mix(Mix(Mix(Mix(0x61746f6d, entry.last_pc), entry.last_write), entry.suspect_pc),
                  entry.suspect_write),
              pc_now),
          write_now);
  char line[320];
  const int length =
      snprintf(line, sizeof(line), "atomicity %lx %u %c %lx %u %c %lx %c %lx\n",
               (unsigned long)addr, serial_t, entry.last_write ? 'W' : 'R',
               (unsigned long)entry.last_pc, entry.suspect_serial, entry.suspect_write ? 'W' : 'R',
               (unsigned long)entry.suspect_pc, write_now ? 'W' : 'R', (unsigned long)pc_now);
  if (length > 0) WriteFinding(hash, line, static_cast<size_t>(length));
}

inline bool Overlap(uint64_t a, uint64_t a_size, uint64_t b, uint64_t b_size) {
  return a < b + b_size && b < a + a_size;
}

// R-W-R, W-W-R, W-R-W and R-W-W: no serial order of the three gives what each access saw.
inline bool Unserializable(bool first, bool between, bool last) {
  if (between) return !(first && last);  // W in between: all but W-W-W
  return first && last;                  // R in between: only W-R-W
}

SectionSlot* SlotOf(ThreadState& t) {
  if (t.section_slot >= 0) return &section_slots[t.section_slot];
  if (t.section_slot == -2) return nullptr;  // the table was full
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (section_slots[i].taken.load(std::memory_order_relaxed) ||
        !section_slots[i].taken.compare_exchange_strong(expected, true)) {
      continue;
    }
    SectionSlot& slot = section_slots[i];
    slot.serial.store(t.serial, std::memory_order_relaxed);
    slot.addr.store(0, std::memory_order_seq_cst);
    int bound = slots_bound.load();
    while (bound <= i && !slots_bound.compare_exchange_weak(bound, i + 1)) {
    }
    t.section_slot = i;
    return &slot;
  }
  t.section_slot = -2;
  return nullptr;
}

// The owner's writes follow the sequence-lock pattern: an odd version, the fields, then the
// next even version. The final store is sequentially consistent: with the readers' loads (also
// sequentially consistent) it makes the store-then-load of two threads opening sections at once
// see at least one of the two.
void CloseSection(SectionSlot& slot) {
  if (slot.addr.load(std::memory_order_relaxed) == 0) return;
  const uint64_t version = slot.version.load(std::memory_order_relaxed);
  slot.version.store(version + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  slot.addr.store(0, std::memory_order_relaxed);
  slot.version.store(version + 2, std::memory_order_seq_cst);
}

void OpenSection(SectionSlot& slot, uint64_t addr, uint64_t size, uint64_t pc, bool write) {
  const uint64_t version = slot.version.load(std::memory_order_relaxed);
  slot.version.store(version + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  slot.addr.store(addr, std::memory_order_relaxed);
  slot.size.store(size, std::memory_order_relaxed);
  slot.pc.store(pc, std::memory_order_relaxed);
  slot.write.store(write, std::memory_order_relaxed);
  slot.version.store(version + 2, std::memory_order_seq_cst);
}

// Another thread's open section that conflicts with this access, read consistently.
void CheckOpenSection(SectionSlot& other, uint32_t serial, uint64_t addr, uint64_t size,
                      uint64_t pc, bool write) {
  const uint64_t before = other.version.load(std::memory_order_seq_cst);
  if (before & 1) return;  // being rewritten: the section it held has ended
  const uint64_t other_addr = other.addr.load(std::memory_order_relaxed);
  if (other_addr == 0) return;
  const uint64_t other_size = other.size.load(std::memory_order_relaxed);
  const uint64_t other_pc = other.pc.load(std::memory_order_relaxed);
  const bool other_write = other.write.load(std::memory_order_relaxed);
  const uint32_t other_serial = other.serial.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (other.version.load(std::memory_order_relaxed) != before) return;
  if (!(write || other_write) || !Overlap(addr, size, other_addr, other_size)) return;
  ReportRace(addr > other_addr ? addr : other_addr,
             std::min(addr + size, other_addr + other_size) - std::max(addr, other_addr),
             other_serial, other_write, other_pc, serial, write, pc);
}

// Notes this access in the open regions of other threads that accessed the location.
void NoteInOtherRegions(int self, uint32_t serial, uint64_t addr, uint64_t size, uint64_t pc,
                        bool write, int bound) {
  for (int i = 0; i < bound; ++i) {
    if (i == self) continue;
    SectionSlot& other = section_slots[i];
    if (other.region_depth.load(std::memory_order_seq_cst) == 0) continue;
    SpinLockGuard guard(other.region_lock);
    for (int e = 0; e < other.region_used; ++e) {
      RegionEntry& entry = other.region[e];
      if (!Overlap(addr, size, entry.addr, entry.size)) continue;
      // A write in between is what matters most: it keeps the strongest suspect.
      if (!entry.has_suspect || (write && !entry.suspect_write)) {
        entry.has_suspect = true;
        entry.suspect_write = write;
        entry.suspect_pc = pc;
        entry.suspect_serial = serial;
      }
    }
  }
}

// The owner's access inside its region: checks the access against what came in between.
void CheckOwnRegion(SectionSlot& slot, uint64_t addr, uint64_t size, uint64_t pc, bool write) {
  SpinLockGuard guard(slot.region_lock);
  for (int e = 0; e < slot.region_used; ++e) {
    RegionEntry& entry = slot.region[e];
    if (entry.addr != addr || entry.size != size) continue;
    if (entry.has_suspect && Unserializable(entry.last_write, entry.suspect_write, write))
      ReportAtomicity(addr, slot.serial.load(std::memory_order_relaxed), entry, write, pc);
    entry.has_suspect = false;
    entry.last_write = write;
    entry.last_pc = pc;
    return;
  }
  if (slot.region_used == kRegionEntries) return;
  RegionEntry& entry = slot.region[slot.region_used++];
  entry = RegionEntry{};
  entry.addr = addr;
  entry.size = size;
  entry.last_pc = pc;
  entry.last_write = write;
}

// A region of the user's (pecan_region_begin, an atomic function's entry, a line range's first
// access) begins; nested ones count.
void BeginRegion(SectionSlot& slot) {
  if (slot.region_depth.load(std::memory_order_relaxed) == 0) {
    SpinLockGuard guard(slot.region_lock);
    slot.region_used = 0;
  }
  slot.region_depth.fetch_add(1, std::memory_order_seq_cst);
}

void EndRegion(SectionSlot& slot) {
  if (slot.region_depth.load(std::memory_order_relaxed) > 0)
    slot.region_depth.fetch_sub(1, std::memory_order_seq_cst);
}

// Line-range sections: the owner enters at an access inside a range and leaves at one outside.
void FollowLineSections(SectionSlot& slot, uint64_t pc) {
  const bool inside = InRanges(settings->lines, pc);
  if (inside == slot.in_lines) return;
  slot.in_lines = inside;
  if (inside)
    BeginRegion(slot);
  else
    EndRegion(slot);
}

bool WantsNoise(uint32_t serial, uint64_t addr, uint64_t pc) {
  switch (settings->heuristic) {
    case Heuristic::kNone:
      return false;
    case Heuristic::kRandom:
      break;
    case Heuristic::kLocation:
      if (!Focused(pc)) return false;
      break;
    case Heuristic::kVariable:
      if (Focused(pc)) {
        ChooseGranule(addr >> 3);
      } else if (!GranuleChosen(addr >> 3)) {
        return false;
      }
      break;
  }
  return NextRandom(serial) % 1000 < settings->frequency;
}

void InjectNoise() {
  if (settings->strength > 0) {
    timespec pause{static_cast<time_t>(settings->strength / 1'000'000),
                   static_cast<long>(settings->strength % 1'000'000) * 1000};
    nanosleep(&pause, nullptr);
  }
  sched_yield();
}

}  // namespace

bool StartNoiseMonitor() {
  const char* report = Env("PECAN_NOISE_REPORT");
  if (report == nullptr) return false;
  const int fd = open(report, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    RuntimeMessage("cannot open PECAN_NOISE_REPORT ", report, "; AtomRace detection is off");
    return false;
  }
  settings = new NoiseSettings;
  settings->report_fd = fd;
  const char* heuristic = Env("PECAN_NOISE");
  if (heuristic == nullptr || strcmp(heuristic, "none") == 0) {
    settings->heuristic = Heuristic::kNone;
  } else if (strcmp(heuristic, "random") == 0) {
    settings->heuristic = Heuristic::kRandom;
  } else if (strcmp(heuristic, "variable") == 0) {
    settings->heuristic = Heuristic::kVariable;
  } else if (strcmp(heuristic, "location") == 0) {
    settings->heuristic = Heuristic::kLocation;
  } else {
    RuntimeMessage("unknown PECAN_NOISE '", heuristic, "'; no noise");
  }
  settings->frequency = ReadNumber("PECAN_NOISE_FREQUENCY", 100, 1000);
  settings->strength = ReadNumber("PECAN_NOISE_STRENGTH", 0, 10'000'000);
  settings->seed = ReadNumber("PECAN_NOISE_SEED", 0, 0xffffffffu);
  if (const char* focus = Env("PECAN_NOISE_FOCUS")) settings->focus = ReadFocus(focus);
  if (const char* atomic = Env("PECAN_NOISE_ATOMIC")) ReadAtomicSections(atomic);
  return true;
}

void NoiseOnAccess(ThreadState& t, EventKind kind, uint64_t addr, uint64_t size, uint64_t pc) {
  const uint32_t saved = t.gates;
  t.gates = 0;  // the monitor's own calls (nanosleep, ...) are not the program's events
  CompilerBarrier();
  SectionSlot* slot = SlotOf(t);
  if (slot != nullptr) {
    const bool write = IsWrite(kind);
    const int self = t.section_slot;
    if (!settings->lines.empty()) FollowLineSections(*slot, pc);
    OpenSection(*slot, addr, size, pc, write);
    const int bound = slots_bound.load(std::memory_order_seq_cst);
    for (int i = 0; i < bound; ++i) {
      if (i != self) CheckOpenSection(section_slots[i], t.serial, addr, size, pc, write);
    }
    NoteInOtherRegions(self, t.serial, addr, size, pc, write, bound);
    if (slot->region_depth.load(std::memory_order_relaxed) > 0)
      CheckOwnRegion(*slot, addr, size, pc, write);
    if (WantsNoise(t.serial, addr, pc)) InjectNoise();
  }
  CompilerBarrier();
  t.gates = saved;
}

void NoiseOnEvent(ThreadState& t, EventKind kind, uint64_t) {
  SectionSlot* found = kind == EventKind::kRegionBegin ? SlotOf(t)
                       : t.section_slot >= 0           ? &section_slots[t.section_slot]
                                                       : nullptr;
  if (found == nullptr) return;
  SectionSlot& slot = *found;
  CloseSection(slot);
  if (kind == EventKind::kRegionBegin) {
    BeginRegion(slot);
  } else if (kind == EventKind::kRegionEnd) {
    EndRegion(slot);
  }
}

void NoiseOnFunction(ThreadState& t, bool entry, uint64_t pc) {
  // Entering or leaving a function is an event outside a line range unless its pc is inside.
  if (!settings->lines.empty() && t.section_slot >= 0)
    FollowLineSections(section_slots[t.section_slot], pc);
  if (settings->functions.empty() || !InRanges(settings->functions, pc)) return;
  SectionSlot* slot = entry                 ? SlotOf(t)
                      : t.section_slot >= 0 ? &section_slots[t.section_slot]
                                            : nullptr;
  if (slot == nullptr) return;
  if (entry)
    BeginRegion(*slot);
  else
    EndRegion(*slot);
}

void NoiseOnThreadEnd(ThreadState& t) {
  if (t.section_slot < 0) {
    t.section_slot = -1;
    return;
  }
  SectionSlot& slot = section_slots[t.section_slot];
  CloseSection(slot);
  slot.region_depth.store(0, std::memory_order_seq_cst);
  slot.in_lines = false;
  slot.taken.store(false, std::memory_order_release);
  t.section_slot = -1;
}

}  // namespace pecan::rt
