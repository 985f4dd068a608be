// Symbolizer turns sites (module + offset) into function, file and line using the modules'
// debug info (elfutils libdw), and addresses into global variable names or heap blocks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "trace_format/trace.h"

namespace pecan {

struct SourceLocation {
  std::string function;  // empty when unknown
  std::string file;      // empty when unknown
  uint32_t line = 0;     // 0 when unknown
};

class Symbolizer {
 public:
  // Keeps a reference to `trace`'s tables; opens module files lazily. Never throws for a
  // missing or stripped module: such sites stay unsymbolized.
  explicit Symbolizer(const Trace& trace);
  ~Symbolizer();

  SourceLocation Resolve(SiteId site);
  // "file:line (function)" when known, else "module+0xOFFSET"; for STD sites, "loc N".
  std::string Describe(SiteId site);
  // The name of the global variable or STD variable/lock at `address`, e.g. "counter" or
  // "table+16", if the symbol tables or the trace's name table know it.
  std::optional<std::string> NameOfAddress(uint64_t address);
  // What the memory event `event` (access, FREE, ALLOC, lock) touches, as every report names it:
  // NameOfAddress, else the heap block the trace allocated there, "heap block of 16 bytes
  // allocated by T0 at list.c:12 (in make_node)" ("byte 8 of a heap block ..." inside it).
  std::optional<std::string> NameOfEventAddress(EventIndex event);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pecan
