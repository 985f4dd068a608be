// ReadReportTrace: the reported events' addresses come first, from their chunks alone (the
// chunk index); then one pass (up to the last reported event, where the footer gives the count)
// follows each thread's open calls and held locks, keeping those open at a reported event, and
// keeps the heap blocks the reported addresses lay in. Both keep an
// opener's closers too, so that the context seen at any later kept event is the whole trace's
// restricted to kept events, which at a reported event is all of it.
#include "analyzer/report_trace.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "trace_format/error.h"
#include "trace_format/event_pass.h"
#include "trace_format/trace_reader.h"

namespace pecan {
namespace {

struct KeptEvent {
  EventIndex index = 0;
  Event event;
};
using KeptEvents = std::vector<KeptEvent>;  // in any order, duplicates allowed

bool IsLifecycle(EventKind kind) {
  return kind == EventKind::kThreadBegin || kind == EventKind::kThreadEnd ||
         kind == EventKind::kFork || kind == EventKind::kJoin;
}

// The events Symbolizer::NameOfEventAddress may name by their heap block.
bool MayNameHeapBlock(EventKind kind) {
  return IsAccess(kind) || kind == EventKind::kFree || kind == EventKind::kAlloc ||
         IsAcquire(kind) || IsRelease(kind);
}

// Each thread's open calls (as EventContexts follows them) and held locks (as LocksetTable
// does), as candidates: an opener open at a reported event is kept, and from then on every
// event that changes it (recursive acquisitions, releases, the FUNC_EXIT), so the kept events
// replay the same stack and the same holds. Openers never kept leave no trace: a release or
// FUNC_EXIT is kept only with its opener, so the report trace's stacks are the whole trace's
// with the unkept entries left out.
class OpenContexts {
 public:
  explicit OpenContexts(KeptEvents& kept) : kept_(kept) {}

  // Call for every event in trace order; `reported` for the events asked about.
  void Read(EventIndex i, const Event& e, bool reported) {
    if (e.thread >= threads_.size()) threads_.resize(e.thread + 1);
    ThreadState& thread = threads_[e.thread];
    // LocksetTable: the set an event holds is the one before its own acquire or release.
    if (reported)
      for (Hold& hold : thread.holds) KeepHold(hold);
    if (IsAcquire(e.kind)) {
      Acquire(thread, KeptEvent{i, e}, reported);
    } else if (IsRelease(e.kind)) {
      Release(thread, KeptEvent{i, e});
    }
    // EventContexts: the calls open at an event are those after its own entry or exit.
    switch (e.kind) {
      case EventKind::kFuncEntry:
        thread.calls.push_back(Call{KeptEvent{i, e}, reported});
        if (reported) kept_.push_back(KeptEvent{i, e});
        break;
      case EventKind::kFuncExit:
        if (thread.calls.empty()) break;
        if (thread.calls.back().kept || reported) {
          // A reported FUNC_EXIT takes its FUNC_ENTRY along, or it would pop another call.
          if (!thread.calls.back().kept) kept_.push_back(thread.calls.back().entry);
          kept_.push_back(KeptEvent{i, e});
        }
        thread.calls.pop_back();
        break;
      case EventKind::kThreadEnd:
        thread.calls.clear();
        break;
      default:
        break;
    }
    if (reported) {
      for (Call& call : thread.calls) {
        if (call.kept) continue;
        call.kept = true;
        kept_.push_back(call.entry);
      }
    }
  }

 private:
  struct Call {
    KeptEvent entry;
    bool kept = false;
  };
  // One hold of a lock, recursive re-acquisitions folded in (LocksetTable's Node).
  struct Hold {
    uint64_t lock = 0;
    bool read_mode = false;
    KeptEvent acquire;
    uint32_t depth = 0;  // recursive re-acquisitions not yet released
    bool kept = false;
    // While not kept: the `depth` re-acquisitions still open (released ones no longer matter).
    std::vector<KeptEvent> open_reacquisitions;
  };
  struct ThreadState {
    std::vector<Call> calls;  // outermost first
    std::vector<Hold> holds;  // outermost first
  };

  void KeepHold(Hold& hold) {
    if (hold.kept) return;
    hold.kept = true;
    kept_.push_back(hold.acquire);
    kept_.insert(kept_.end(), hold.open_reacquisitions.begin(), hold.open_reacquisitions.end());
    hold.open_reacquisitions.clear();
    hold.open_reacquisitions.shrink_to_fit();
  }

  void Acquire(ThreadState& thread, const KeptEvent& acquire, bool reported) {
    const bool read_mode = acquire.event.kind == EventKind::kReadLock;
    for (Hold& hold : thread.holds) {
      if (hold.lock != acquire.event.addr || hold.read_mode != read_mode) continue;
      ++hold.depth;
      if (hold.kept) {
        kept_.push_back(acquire);
      } else {
        hold.open_reacquisitions.push_back(acquire);
      }
      return;
    }
    thread.holds.push_back(Hold{acquire.event.addr, read_mode, acquire, 0, false, {}});
    if (reported) KeepHold(thread.holds.back());
  }

  void Release(ThreadState& thread, const KeptEvent& release) {
    const bool read_mode = release.event.kind == EventKind::kReadUnlock;
    // From the innermost, like LocksetTable; a release of a lock not held changes nothing.
    for (size_t k = thread.holds.size(); k-- > 0;) {
      Hold& hold = thread.holds[k];
      if (hold.lock != release.event.addr || hold.read_mode != read_mode) continue;
      if (hold.kept) kept_.push_back(release);
      if (hold.depth > 0) {
        --hold.depth;
        if (!hold.kept) hold.open_reacquisitions.pop_back();
        return;
      }
      thread.holds.erase(thread.holds.begin() + static_cast<std::ptrdiff_t>(k));
      return;
    }
  }

  KeptEvents& kept_;
  std::vector<ThreadState> threads_;  // by ThreadId
};

// For each reported address, the latest ALLOC covering it so far (HeapBlocks::At: freed blocks
// count, so a use after free names the block it used), with the FREE that ended it; the block
// of a reported event is kept with its FREE (a FREE that comes later is kept when it comes).
class HeapBlockKeeper {
 public:
  // `addresses`: the reported events' addresses, sorted, without duplicates.
  HeapBlockKeeper(std::vector<uint64_t> addresses, KeptEvents& kept)
      : addresses_(std::move(addresses)), latest_(addresses_.size()), kept_(kept) {}

  // Call for every event in trace order; `reported` for the events asked about.
  void Read(EventIndex i, const Event& e, bool reported) {
    if (e.kind == EventKind::kAlloc) {
      Allocate(KeptEvent{i, e});
    } else if (e.kind == EventKind::kFree) {
      auto it = unfreed_.find(e.addr);
      if (it != unfreed_.end()) {
        it->second->free = KeptEvent{i, e};
        if (it->second->kept) kept_.push_back(KeptEvent{i, e});
        unfreed_.erase(it);
      }
    }
    // After the update: an ALLOC names the block it creates.
    if (!reported || !MayNameHeapBlock(e.kind)) return;
    auto at = std::lower_bound(addresses_.begin(), addresses_.end(), e.addr);
    if (at == addresses_.end() || *at != e.addr) return;
    const std::shared_ptr<Block>& block = latest_[at - addresses_.begin()];
    if (!block || block->kept) return;
    block->kept = true;
    kept_.push_back(block->alloc);
    if (block->free) kept_.push_back(*block->free);
  }

 private:
  struct Block {
    KeptEvent alloc;
    std::optional<KeptEvent> free;
    bool kept = false;
  };

  void Allocate(const KeptEvent& alloc) {
    // HeapBlocks' extent, wrap-around included (a block whose end wraps covers nothing).
    const uint64_t begin = alloc.event.addr;
    const uint64_t end = begin + std::max<uint64_t>(alloc.event.size, 1);
    std::shared_ptr<Block> block;
    for (auto it = std::lower_bound(addresses_.begin(), addresses_.end(), begin);
         it != addresses_.end() && *it < end; ++it) {
      if (!block) block = std::make_shared<Block>(Block{alloc, std::nullopt, false});
      latest_[it - addresses_.begin()] = block;
    }
    if (block) {
      unfreed_[begin] = block;
    } else {
      unfreed_.erase(begin);  // a FREE at `begin` now ends this block, which nothing reports
    }
  }

  std::vector<uint64_t> addresses_;
  std::vector<std::shared_ptr<Block>> latest_;  // per address in addresses_
  // Blocks in latest_ not yet freed, by their first byte (a FREE names it).
  std::unordered_map<uint64_t, std::shared_ptr<Block>> unfreed_;
  KeptEvents& kept_;
};

// The addresses of the `reported` events (sorted, unique) that may name a heap block, sorted and
// without duplicates: each chunk holding such an event is read once, by the chunk index.
std::vector<uint64_t> ReportedAddresses(TraceReader& reader,
                                        const std::vector<EventIndex>& reported) {
  std::vector<uint64_t> addresses;
  const size_t chunks = reader.chunk_count();
  if (chunks == 0) return addresses;
  EventBatch batch;
  constexpr size_t kNone = SIZE_MAX;
  size_t chunk = kNone;  // the chunk `batch` holds
  for (const EventIndex i : reported) {
    // The last chunk that begins at or before i (chunks begin in increasing order).
    size_t next = chunk == kNone ? 0 : chunk;
    while (next + 1 < chunks && reader.chunk_first_event(next + 1) <= i) ++next;
    if (next != chunk) {
      chunk = next;
      reader.ReadChunk(chunk, batch);
    }
    if (i < batch.first_event || i - batch.first_event >= batch.count()) continue;  // past the end
    const Event e = batch.event(static_cast<size_t>(i - batch.first_event));
    if (MayNameHeapBlock(e.kind)) addresses.push_back(e.addr);
  }
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  return addresses;
}

}  // namespace

Trace ReadReportTrace(const std::string& path, const std::vector<EventIndex>& events,
                      bool log_warnings, bool show_progress) {
  std::vector<EventIndex> reported = events;
  std::sort(reported.begin(), reported.end());
  reported.erase(std::unique(reported.begin(), reported.end()), reported.end());

  KeptEvents kept;
  std::vector<uint64_t> addresses;
  {
    TraceReader index_reader(path, /*log_warnings=*/false);  // the pass below warns, once
    addresses = ReportedAddresses(index_reader, reported);
  }
  TraceReader reader(path, log_warnings);
  OpenContexts contexts(kept);
  HeapBlockKeeper heap_blocks(std::move(addresses), kept);
  auto next = reported.begin();
  auto read_event = [&](EventIndex i, const Event& e) {
    const bool is_reported = next != reported.end() && *next == i;
    if (is_reported) ++next;
    contexts.Read(i, e, is_reported);
    if (is_reported || IsLifecycle(e.kind)) kept.push_back(KeptEvent{i, e});
    heap_blocks.Read(i, e, is_reported);
  };
  // What a report reads of an event comes before it (the calls and locks open at it, the heap
  // block it names): a file with a footer, which gives the tables, the exit and the number of
  // events, is read up to the last reported event only (pcompress 1 MiB: its first 2.1 M of 7.9 M
  // events), and not at all for none. Another is read to its end, where a footer found late may
  // add the exit.
  const std::optional<uint64_t> footer_count = reader.footer_event_count();
  const std::string label = "reading the reported events";
  uint64_t read = 0;
  if (!footer_count) {
    read = ForEachEvent(reader, show_progress, label, 0, read_event);
  } else if (!reported.empty()) {
    const EventIndex last = reported.back();
    read = ForEachEventUpTo(reader, show_progress, label, std::min(last + 1, *footer_count), last,
                            read_event);
  }

  std::sort(kept.begin(), kept.end(),
            [](const KeptEvent& a, const KeptEvent& b) { return a.index < b.index; });
  kept.erase(std::unique(kept.begin(), kept.end(),
                         [](const KeptEvent& a, const KeptEvent& b) { return a.index == b.index; }),
             kept.end());
  Trace trace;
  trace.reserve(kept.size());
  trace.origin.reserve(kept.size());
  for (const KeptEvent& k : kept) {
    trace.push_back(k.event);
    trace.origin.push_back(k.index);
  }
  trace.recorded_events = footer_count ? *footer_count : read;
  trace.meta = reader.meta();  // after reading: a footer found late may have added the exit
  trace.threads = reader.threads();
  trace.sites = reader.sites();
  trace.modules = reader.modules();
  trace.names = reader.names();
  return trace;
}

void ToTraceNumbers(const Trace& trace, std::vector<Finding>* findings) {
  auto position = [&trace](EventIndex recorded) {
    if (trace.origin.empty()) {
      if (recorded < trace.size_events()) return recorded;
    } else {
      auto it = std::lower_bound(trace.origin.begin(), trace.origin.end(), recorded);
      if (it != trace.origin.end() && *it == recorded)
        return static_cast<EventIndex>(it - trace.origin.begin());
    }
    throw PecanError("report: finding names event " + std::to_string(recorded) +
                     ", which the trace read for the report does not hold");
  };
  std::vector<Finding> mapped = *findings;
  for (Finding& f : mapped) {
    for (EventIndex& e : f.events) e = position(e);
    for (EventIndex& e : f.overtaken) e = position(e);
  }
  *findings = std::move(mapped);
}

}  // namespace pecan
