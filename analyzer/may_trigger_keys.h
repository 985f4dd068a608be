// The stable names DrFinder's may-trigger relations use: a key for a function and a key for a
// lock's class, the same in every run of one binary, so the runtime can form them from a PC.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzer/symbolizer.h"
#include "trace_format/trace.h"

namespace pecan {

// How keys are formed (the runtime must reproduce these exactly):
//
// Code-address key, of a site or a PC:  "<module>+0x<offset>"
//   <module> is the basename of the module's path (the trace's program when the module has no
//   path; "loc" for a site without module, i.e. an STD import); <offset> is the address minus
//   the module's load address (a site's SiteInfo::offset), lower-case hex without leading zeros.
//   Example: "app+0x1a2f", "libfoo.so+0x40". At run time: PC -> the module containing it
//   (dl_iterate_phdr) -> basename + (PC - load address).
//
// Function key, for the function a FUNC_ENTRY enters:
//   1. an STD import (FUNC_ENTRY with a non-zero address): the name the trace's name table
//      gives that address ("f1");
//   2. the function the symbolizer finds for the FUNC_ENTRY's site, demangled ("worker",
//      "ns::Queue::push(int)"), without the module (static functions of one name in two modules
//      share a key: may-trigger is a heuristic and only gains relations);
//   3. otherwise the site's code-address key ("app+0x1a2f").
//   At run time: the FUNC_ENTRY PC's code-address key, looked up in the relations' entry-site
//   table (MayTriggerRelations::EntrySites); absent -> the code-address key itself (rule 3).
//
// Lock-class key, for the lock at address A:
//   1. "<symbol>" when A lies in a named global (the trace's name table first, then the modules'
//      symbol tables): the symbol's name without "+offset", so every mutex of a global array or
//      struct is one class ("forks", "g_state");
//   2. "alloc@<code-address key of the ALLOC site>" when A lies in a live heap block (from
//      ALLOC/FREE events: addr = block base, size = block size; the ALLOC's site is where the
//      allocator was called): every lock inside blocks allocated at one place is one class;
//   3. otherwise "lock@0x<A in hex>" — a raw address, stable only where the layout is (no ASLR).
//   At run time: (1) the lock address's code-address key (the module whose mapping holds it),
//   looked up in the relations' global-lock table (MayTriggerRelations::GlobalLocks); else (2)
//   the code-address key of the allocation call that made the block holding A; else (3).

// Code-address key of a site, as above.
std::string SiteKey(const Trace& trace, SiteId site);

// Forms function and lock-class keys over one trace (caching per site and per address).
class MayTriggerKeys {
 public:
  // Keeps references to both; the symbolizer must be over the same trace.
  MayTriggerKeys(const Trace& trace, Symbolizer& symbolizer);

  // The function key of the FUNC_ENTRY event `entry`.
  const std::string& FunctionKey(EventIndex entry);
  // The lock-class key of the lock at `lock` given the heap blocks live at that moment.
  std::string LockClassKey(uint64_t lock);
  // The code-address key of a global's address ("app+0x4010"), when some module holds it
  // (the one with the highest load address not above it); the runtime's name for rule 1.
  std::optional<std::string> GlobalAddressKey(uint64_t address) const;

  // Heap tracking for rule 2: feed ALLOC and FREE events in trace order.
  void OnAlloc(uint64_t base, uint64_t size, SiteId site);
  void OnFree(uint64_t base);

 private:
  struct Block {
    uint64_t end = 0;
    SiteId site = 0;
  };
  const Trace& trace_;
  Symbolizer& symbolizer_;
  std::unordered_map<SiteId, std::string> function_by_site_;
  std::unordered_map<uint64_t, std::string> function_by_address_;
  std::unordered_map<uint64_t, std::optional<std::string>> global_by_address_;
  std::map<uint64_t, Block> blocks_;  // live heap blocks by base
};

// One lock acquisition (LOCK or READ_LOCK event) and its lock-class key.
struct LockAcquisitionClass {
  EventIndex event = 0;
  std::string lock_class;
};

// Every lock acquisition of the trace, in trace order, with its class key.
std::vector<LockAcquisitionClass> LockAcquisitionClasses(const Trace& trace,
                                                         Symbolizer& symbolizer);

}  // namespace pecan
