// --max-memory: a bound on the heap memory the pecan process allocates (its analysis, clips and
// reports; not the programs it records or replays, which are processes of their own). An
// allocation past the bound throws std::bad_alloc (MemoryLimitReached), which the commands
// report as "out of memory", never as a damaged trace. The default bound is the machine's
// physical memory, so an analysis too big for the machine ends with that message instead of
// the kernel's OOM killer.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <new>
#include <string>

namespace pecan::cli {

// The exception an allocation past the bound throws; what() names the bound.
class MemoryLimitReached : public std::bad_alloc {
 public:
  const char* what() const noexcept override;
};

// The default bound: the machine's physical memory, or the container's (cgroup) limit when that
// is lower.
uint64_t DefaultMemoryLimit();
// 0: no bound.
void SetMemoryLimit(uint64_t bytes);
uint64_t MemoryLimit();
// False in sanitizer builds: the sanitizers' allocators are left in place, unbounded.
bool MemoryLimitEnforced();
// Heap bytes pecan holds now (as counted for the bound; 0 where not enforced).
uint64_t MemoryInUse();

// "2G", "1.5GB", "512M", "512MiB", "800000K", "1073741824" (bytes), "0" (no bound); K, M, G,
// T are powers of 1024. Throws PecanError naming `what` for anything else.
uint64_t ParseMemorySize(const std::string& text, const std::string& what);
// "2.0 GiB", "512 MiB".
std::string MemorySizeText(uint64_t bytes);

// Adds --max-memory to a command whose work happens in the pecan process (analyze, clips,
// triage, hunt); it takes effect when the command line is parsed.
void AddMaxMemoryOption(CLI::App& app);

// The message for an exhausted allocation: what was refused and what to try.
std::string OutOfMemoryText(const std::bad_alloc& e);

}  // namespace pecan::cli
