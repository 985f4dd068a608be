// DrFinder's may-trigger relations (Cai & Cao, FSE 2015, section 4.3 and Algorithm 1): which
// functions, while on a thread's call stack, went on to acquire a lock of which class.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "analyzer/symbolizer.h"
#include "trace_format/trace.h"

namespace pecan {

// How many of the innermost functions on the stack at an acquisition get the relation (the
// paper's depth d; the default).
inline constexpr uint32_t kDefaultMayTriggerDepth = 3;

// A set of relations mt(function, lock class), keyed by the strings of may_trigger_keys.h, plus
// the tables a runtime needs to form the same keys from PCs and addresses.
class MayTriggerRelations {
 public:
  void Add(const std::string& function, const std::string& lock_class);
  // True when mt(function, lock_class) is in the set.
  bool MayTrigger(std::string_view function, std::string_view lock_class) const;
  // Every relation of `other` (and its tables) added to this set.
  void Merge(const MayTriggerRelations& other);

  // function -> the lock classes it may trigger, both sorted.
  const std::map<std::string, std::set<std::string>, std::less<>>& ByFunction() const {
    return by_function_;
  }
  size_t size() const;  // number of relations

  // FUNC_ENTRY code-address key ("app+0x1a2f") -> function key, for each entry site whose
  // function key is not its own code-address key (the symbolized ones).
  const std::map<std::string, std::string>& EntrySites() const { return entry_sites_; }
  void AddEntrySite(const std::string& site_key, const std::string& function);
  // Code-address key of each global lock address the trace acquired ("app+0x4010") -> its class
  // ("forks"); another element of the same global array is not listed.
  const std::map<std::string, std::string>& GlobalLocks() const { return global_locks_; }
  void AddGlobalLock(const std::string& address_key, const std::string& lock_class);

  // JSON: {"format": "pecan-may-trigger", "version": 1,
  //        "relations": {"<function>": ["<lock class>", ...], ...},
  //        "entry_sites": {"<code-address key>": "<function>", ...},
  //        "global_locks": {"<code-address key>": "<lock class>", ...}}
  std::string ToJson() const;
  // Throws PecanError (naming `source`) for text that is not such a document.
  static MayTriggerRelations FromJson(std::string_view text, const std::string& source = "JSON");
  // Throw PecanError naming `path` when it cannot be written or read.
  void Write(const std::string& path) const;
  static MayTriggerRelations Read(const std::string& path);

  bool operator==(const MayTriggerRelations&) const = default;

 private:
  std::map<std::string, std::set<std::string>, std::less<>> by_function_;
  std::map<std::string, std::string> entry_sites_;
  std::map<std::string, std::string> global_locks_;
};

// Algorithm 1 over a recorded trace: each thread's call stack from FUNC_ENTRY/FUNC_EXIT (an exit
// with an empty stack is ignored; THREAD_END empties it), and at every LOCK or READ_LOCK,
// mt(f, class of the lock) for each of the `depth` innermost functions f on the stack
// (recursion puts a function there more than once; it counts once). Acquisitions with no
// function on the stack give nothing.
MayTriggerRelations CollectMayTrigger(const Trace& trace, Symbolizer& symbolizer,
                                      uint32_t depth = kDefaultMayTriggerDepth);

}  // namespace pecan
