// --max-memory (memory_limit.h): the replaceable global operator new and delete of the pecan
// executable count the usable size of every block they hand out; an allocation that would take
// the count past the bound throws MemoryLimitReached instead. Blocks come from malloc, so
// malloc_usable_size gives the same size at delete as at new.
#include "cli/memory_limit.h"

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "trace_format/error.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PECAN_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define PECAN_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace pecan::cli {
namespace {

// Constant-initialized, so allocations before main (static constructors) see "no bound".
std::atomic<uint64_t> g_limit{0};
std::atomic<uint64_t> g_in_use{0};
char g_limit_text[96] = "pecan's memory bound reached";

}  // namespace

const char* MemoryLimitReached::what() const noexcept { return g_limit_text; }

std::string MemorySizeText(uint64_t bytes) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

uint64_t DefaultMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  uint64_t limit = pages > 0 && page_size > 0
                       ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size)
                       : 0;
  // cgroup v2, then v1 ("max" or a huge number: no limit).
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    unsigned long long bytes = 0;
    if (in >> bytes && bytes > 0 && (limit == 0 || bytes < limit)) limit = bytes;
  }
  return limit;
}

void SetMemoryLimit(uint64_t bytes) {
  std::snprintf(g_limit_text, sizeof g_limit_text, "the memory bound of %s (--max-memory) reached",
                MemorySizeText(bytes).c_str());
  g_limit.store(bytes, std::memory_order_relaxed);
}

uint64_t MemoryLimit() { return g_limit.load(std::memory_order_relaxed); }

bool MemoryLimitEnforced() {
#ifdef PECAN_SANITIZER_ALLOCATOR
  return false;
#else
  return true;
#endif
}

uint64_t MemoryInUse() { return g_in_use.load(std::memory_order_relaxed); }

uint64_t ParseMemorySize(const std::string& text, const std::string& what) {
  auto bad = [&] {
    return PecanError(what + ": '" + text +
                      "' is not a memory size (e.g. 2G, 512M, 1.5GiB, or 0 for no bound)");
  };
  size_t pos = 0;
  while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) ||
                               text[pos] == '.'))
    ++pos;
  if (pos == 0) throw bad();
  double number = 0;
  try {
    size_t used = 0;
    number = std::stod(text.substr(0, pos), &used);
    if (used != pos) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  std::string unit = text.substr(pos);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB")) unit.resize(unit.size() - 2);
  else if (unit.size() > 1 && unit.ends_with("B")) unit.pop_back();
  double scale = 1;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  else throw bad();
  const double bytes = number * scale;
  if (!std::isfinite(bytes) || bytes >= 1.8e19) throw bad();
  if (bytes > 0 && bytes < 16.0 * 1024 * 1024)
    throw PecanError(what + ": " + text + " is too little to run pecan in; give at least 16M");
  return static_cast<uint64_t>(bytes);
}

void AddMaxMemoryOption(CLI::App& app) {
  app.add_option_function<std::string>(
         "--max-memory",
         [](const std::string& text) {
           try {
             SetMemoryLimit(ParseMemorySize(text, "--max-memory"));
           } catch (const PecanError& e) {  // reported like every other bad option
             throw CLI::ValidationError(e.what());
           }
         },
         "Bound on the memory pecan itself allocates (analysis, clips, reports; not the "
         "program's runs), e.g. 4G or 512M; 0 for none. Default: the machine's memory (or "
         "the container's limit). Past it pecan stops with 'out of memory', exit status 3")
      ->type_name("SIZE");
}

std::string OutOfMemoryText(const std::bad_alloc& e) {
  if (dynamic_cast<const MemoryLimitReached*>(&e) != nullptr)
    return std::string("out of memory: ") + e.what();
  return "out of memory: the system refused an allocation (" + MemorySizeText(MemoryInUse()) +
         " in use)";
}

}  // namespace pecan::cli

#ifndef PECAN_SANITIZER_ALLOCATOR

namespace {

using pecan::cli::g_in_use;
using pecan::cli::g_limit;

enum class Failure { kNone, kLimit, kSystem };

// One block of at least `size` bytes aligned to `align` (0: malloc's own), counted; nullptr and
// why when it cannot be had.
void* TryAllocate(size_t size, size_t align, Failure* failure) {
  if (size == 0) size = 1;
  void* block = nullptr;
  if (align == 0) {
    block = std::malloc(size);
  } else if (posix_memalign(&block, align, size) != 0) {
    block = nullptr;
  }
  if (block == nullptr) {
    *failure = Failure::kSystem;
    return nullptr;
  }
  const uint64_t usable = malloc_usable_size(block);
  const uint64_t now = g_in_use.fetch_add(usable, std::memory_order_relaxed) + usable;
  const uint64_t limit = g_limit.load(std::memory_order_relaxed);
  if (limit != 0 && now > limit) {
    g_in_use.fetch_sub(usable, std::memory_order_relaxed);
    std::free(block);
    *failure = Failure::kLimit;
    return nullptr;
  }
  return block;
}

// operator new's contract: on failure call the new-handler and retry, or throw when there is
// none.
void* Allocate(size_t size, size_t align) {
  for (;;) {
    Failure failure = Failure::kNone;
    if (void* block = TryAllocate(size, align, &failure)) return block;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) {
      if (failure == Failure::kLimit) throw pecan::cli::MemoryLimitReached();
      throw std::bad_alloc();
    }
    handler();
  }
}

void* AllocateNoThrow(size_t size, size_t align) noexcept {
  try {
    return Allocate(size, align);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void Release(void* block) noexcept {
  if (block == nullptr) return;
  g_in_use.fetch_sub(malloc_usable_size(block), std::memory_order_relaxed);
  std::free(block);
}

size_t Align(std::align_val_t a) { return static_cast<size_t>(a); }

}  // namespace

void* operator new(size_t size) { return Allocate(size, 0); }
void* operator new[](size_t size) { return Allocate(size, 0); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return AllocateNoThrow(size, 0); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return AllocateNoThrow(size, 0);
}
void* operator new(size_t size, std::align_val_t a) { return Allocate(size, Align(a)); }
void* operator new[](size_t size, std::align_val_t a) { return Allocate(size, Align(a)); }
void* operator new(size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return AllocateNoThrow(size, Align(a));
}
void* operator new[](size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return AllocateNoThrow(size, Align(a));
}
void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, size_t) noexcept { Release(p); }
void operator delete[](void* p, size_t) noexcept { Release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { Release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { Release(p); }

#endif  // PECAN_SANITIZER_ALLOCATOR
