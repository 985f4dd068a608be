// The in-memory trace: every event of a run in global order, as struct-of-arrays columns, plus
// the thread, site, module and name tables. What the analyzer and schedule generator work on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace_format/event_kind.h"

namespace pecan {

using ThreadId = uint32_t;
using SiteId = uint32_t;
using EventIndex = uint64_t;

inline constexpr uint32_t kNoModule = 0;

struct ModuleInfo {
  uint32_t id = 0;
  std::string path;
  uint64_t load_address = 0;
  std::string build_id;  // raw bytes
};

struct SiteInfo {
  uint32_t module = kNoModule;  // kNoModule for STD imports: `offset` is the STD location
  uint64_t offset = 0;
};

struct ThreadInfo {
  std::optional<ThreadId> parent;  // none for the main thread
  uint32_t ordinal = 0;            // n-th child of the parent, 0-based
  std::string name;                // "T<id>" unless named otherwise
};

struct AddressName {
  uint64_t address = 0;
  uint64_t size = 0;
  std::string name;
};

struct RecorderSettingsInfo {
  uint32_t chunk_events = 0;
  int32_t zstd_level = 0;
  bool func_events = false;
  bool stack_accesses = false;
  std::string fork_policy;
  bool drop_repeats = false;  // repeated accesses within one epoch left out (repeat_filter.h)
};

struct ProgramExitInfo {
  bool known = false;  // false when the trace has no footer (truncated) or no exit recorded
  bool exited = false;
  int32_t exit_status = 0;
  int32_t signal = 0;
};

// What a thread waited for when the recorder ended a run in which every thread was blocked
// (proto/trace.proto, BlockedOn; the values are the format's).
enum class BlockedOn : uint8_t {
  kUnspecified = 0,
  kMutex = 1,
  kSpinlock = 2,
  kReadLock = 3,   // rwlock, shared mode
  kWriteLock = 4,  // rwlock, exclusive mode
  kCondition = 5,
  kJoin = 6,
  kBarrier = 7,
  kSemaphore = 8,
  kStaticInit = 9,
};
inline constexpr BlockedOn kLastBlockedOn = BlockedOn::kStaticInit;

// True for the waits that name who holds what the thread waits for.
inline bool IsLockWait(BlockedOn on) {
  return on == BlockedOn::kMutex || on == BlockedOn::kSpinlock || on == BlockedOn::kReadLock ||
         on == BlockedOn::kWriteLock;
}

// BlockedThreadInfo::object of a join whose thread the trace does not know.
inline constexpr uint64_t kUnknownJoinedThread = UINT64_MAX;

// The exit status the recorder ends a run with when every thread was blocked (and the status
// `pecan record` then exits with). Not 124 (--timeout); the replayer ends a stuck replay with it
// too: in both the runtime, not the program, stopped the run.
inline constexpr int kDeadlockExitStatus = 86;

struct LockHolderInfo {
  ThreadId thread = 0;
  SiteId site = 0;  // where it took the lock
  bool shared = false;

  bool operator==(const LockHolderInfo&) const = default;
};

// One thread of a run the recorder ended because every live thread was blocked (a deadlock).
struct BlockedThreadInfo {
  ThreadId thread = 0;
  BlockedOn on = BlockedOn::kUnspecified;
  uint64_t object =
      0;            // the object's address; kJoin: the joined ThreadId (or kUnknownJoinedThread)
  SiteId site = 0;  // the blocking call
  std::vector<LockHolderInfo> holders;  // lock waits: the threads that hold the lock

  bool operator==(const BlockedThreadInfo&) const = default;
};

// Everything about a trace except its events.
struct TraceMeta {
  uint32_t format_major = 0;
  uint32_t format_minor = 0;
  std::string producer;
  std::string program;
  std::vector<std::string> args;
  uint32_t pid = 0;
  int64_t start_unix_ns = 0;
  RecorderSettingsInfo settings;
  ProgramExitInfo exit;
  uint64_t dropped_events = 0;
  // Non-empty when the recorder ended the run because every thread was blocked (format 2.1).
  std::vector<BlockedThreadInfo> blocked_threads;
};

// One event, as a value (the Trace stores columns; this is for building and iterating).
struct Event {
  ThreadId thread = 0;
  EventKind kind = EventKind::kUnspecified;
  uint8_t flags = 0;
  uint32_t size = 0;
  uint64_t addr = 0;
  SiteId site = 0;
  // Repeats of an access the thread made since its previous event that the recorder left out
  // (proto/trace.proto, EventChunk.repeats_before).
  uint16_t repeats_before = 0;

  bool operator==(const Event&) const = default;
};

class Trace {
 public:
  TraceMeta meta;
  std::vector<ThreadInfo> threads;  // indexed by ThreadId
  std::vector<SiteInfo> sites;      // indexed by SiteId
  std::vector<ModuleInfo> modules;  // by position; look up by ModuleInfo::id
  std::vector<AddressName> names;

  // Columns, one entry per event, in global order.
  std::vector<ThreadId> thread;
  std::vector<EventKind> kind;
  std::vector<uint8_t> flags;
  std::vector<uint32_t> size;
  std::vector<uint64_t> addr;
  std::vector<SiteId> site;
  // Empty when no event follows left-out repeats (most traces), else one entry per event.
  std::vector<uint16_t> repeats_before;
  // Imported STD text only (empty otherwise, and not stored in .pecan files): per event, the
  // 1-based line of the file it came from, so reports can point into a commented file.
  std::vector<uint32_t> source_line;
  // A trace read for analysis keeps only the events some pattern can use
  // (analyzer/analysis_trace.h): per event, its index in the recorded trace, and the recorded
  // trace's event count. Empty (and 0): the events are the recorded ones.
  std::vector<EventIndex> origin;
  uint64_t recorded_events = 0;

  size_t size_events() const { return kind.size(); }
  // The recorded trace's index of event i, and how many events it had.
  EventIndex Origin(EventIndex i) const { return origin.empty() ? i : origin[i]; }
  uint64_t RecordedEvents() const { return origin.empty() ? size_events() : recorded_events; }
  uint16_t RepeatsBefore(EventIndex i) const {
    return repeats_before.empty() ? 0 : repeats_before[i];
  }
  Event event(EventIndex i) const {
    return Event{thread[i], kind[i], flags[i], size[i], addr[i], site[i], RepeatsBefore(i)};
  }
  void push_back(const Event& e);
  // Appends columns of `count` events; `repeats` is empty or has `count` entries.
  void AppendRepeats(const std::vector<uint16_t>& repeats, size_t count);
  void reserve(size_t n);
};

}  // namespace pecan
