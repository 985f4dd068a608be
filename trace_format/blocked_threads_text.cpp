// DescribeBlockedThreads: one clause per thread of a deadlocked recording, in the words the
// replayer's stuck report uses (cli/replay_stuck_text.cpp), so both read alike.
#include "trace_format/blocked_threads_text.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace pecan {
namespace {

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

class Words {
 public:
  Words(const Trace& tables, const SiteDescriber& site, const AddressNamer& name_address)
      : tables_(tables), site_(site), name_address_(name_address) {}

  std::string Thread(uint64_t id) const {
    if (id < tables_.threads.size() && !tables_.threads[id].name.empty())
      return tables_.threads[id].name;
    return "T" + std::to_string(id);
  }

  std::string Site(SiteId site) const {
    if (site_) return site_(site);
    return DescribeSiteRaw(tables_.sites, tables_.modules, site);
  }

  std::string Object(uint64_t address) const {
    if (name_address_) {
      if (std::optional<std::string> name = name_address_(address)) return "`" + *name + "`";
    }
    for (const AddressName& name : tables_.names)
      if (address >= name.address && address < name.address + std::max<uint64_t>(name.size, 1))
        return "`" + name.name + "`";
    return Hex(address);
  }

 private:
  const Trace& tables_;
  const SiteDescriber& site_;
  const AddressNamer& name_address_;
};

std::string Holders(const BlockedThreadInfo& blocked, const Words& words) {
  if (blocked.holders.size() == 1 && blocked.holders[0].thread == blocked.thread)
    return ", which it holds itself (taken at " + words.Site(blocked.holders[0].site) + ")";
  std::string text;
  for (const LockHolderInfo& holder : blocked.holders) {
    text += text.empty() ? " held by " : " and ";
    text += words.Thread(holder.thread) + (holder.shared ? " as a reader" : "") + " (taken at " +
            words.Site(holder.site) + ")";
  }
  return text;
}

std::string Clause(const BlockedThreadInfo& blocked, const Words& words) {
  const std::string who = words.Thread(blocked.thread);
  const std::string at = " (" + words.Site(blocked.site) + ")";
  switch (blocked.on) {
    case BlockedOn::kMutex:
    case BlockedOn::kSpinlock:
    case BlockedOn::kReadLock:
    case BlockedOn::kWriteLock:
      return who + " waits for " + BlockedOnName(blocked.on) + " " + words.Object(blocked.object) +
             at + Holders(blocked, words);
    case BlockedOn::kCondition:
      return who + " waits for a notify of condition " + words.Object(blocked.object) + at;
    case BlockedOn::kJoin:
      return who + " waits to join " +
             (blocked.object == kUnknownJoinedThread ? std::string("a thread")
                                                     : words.Thread(blocked.object)) +
             at;
    case BlockedOn::kBarrier:
      return who + " waits at barrier " + words.Object(blocked.object) + at;
    case BlockedOn::kSemaphore:
      return who + " waits on semaphore " + words.Object(blocked.object) + at;
    case BlockedOn::kStaticInit:
      return who + " waits for another thread's initialization of a static" + at;
    case BlockedOn::kUnspecified:
      break;
  }
  return who + " is blocked" + at;
}

}  // namespace

const char* BlockedOnName(BlockedOn on) {
  switch (on) {
    case BlockedOn::kMutex:
      return "mutex";
    case BlockedOn::kSpinlock:
      return "spinlock";
    case BlockedOn::kReadLock:
      return "read lock";
    case BlockedOn::kWriteLock:
      return "write lock";
    case BlockedOn::kCondition:
      return "condition";
    case BlockedOn::kJoin:
      return "join";
    case BlockedOn::kBarrier:
      return "barrier";
    case BlockedOn::kSemaphore:
      return "semaphore";
    case BlockedOn::kStaticInit:
      return "static initialization";
    case BlockedOn::kUnspecified:
      break;
  }
  return "unknown";
}

std::string DescribeBlockedThreads(const Trace& tables, const SiteDescriber& site,
                                   const AddressNamer& name_address) {
  const Words words(tables, site, name_address);
  std::string text;
  for (const BlockedThreadInfo& blocked : tables.meta.blocked_threads) {
    if (!text.empty()) text += "; ";
    text += Clause(blocked, words);
  }
  return text;
}

}  // namespace pecan
