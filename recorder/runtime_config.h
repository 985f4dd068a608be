// The runtime's settings, read once from the environment (docs/runtime-env.md is the contract).
// Parsing never allocates through the interposed allocator in a way that is recorded.
#pragma once

#include <cstdint>
#include <string>

namespace pecan::rt {

// kHeal: nothing is recorded; the healing monitor (heal_sections.h) sees every thread.
enum class RuntimeMode : uint8_t { kOff, kRecord, kReplay, kHeal };
enum class ForkPolicy : uint8_t { kStop, kFollow };

struct RuntimeConfig {
  RuntimeMode mode = RuntimeMode::kOff;
  std::string trace_path;  // after %p / %n expansion
  bool func_events = true;
  bool stack_accesses = false;
  bool drop_repeats = true;  // repeat_filter.h
  uint32_t chunk_events = 65536;
  int zstd_level = 1;  // the writer thread competes with the program: speed over size
  ForkPolicy fork_policy = ForkPolicy::kStop;
  bool quiet = false;
  // Record mode: how long every thread must stay blocked in untimed synchronization before the
  // runtime ends the run as deadlocked (deadlock_watch.h). 0: never.
  uint32_t deadlock_wait_ms = 1500;
};

// Reads PECAN_* from the environment. Unknown values fall back to the defaults (with a
// "pecan-rt:" message unless PECAN_QUIET=1).
RuntimeConfig ReadRuntimeConfig();

// Replaces %p by `pid` and %n by `program_name` in a PECAN_TRACE pattern.
std::string ExpandTracePath(const std::string& pattern, int pid, const std::string& program_name);

const char* ForkPolicyName(ForkPolicy policy);

}  // namespace pecan::rt
