// Slot search for CanReorder: per moved event, a scan over the interrupted thread's events
// between the pattern neighbours, nearest slot first, so the schedule moves as little as possible.
#include "analyzer/reorder_feasibility.h"

#include <algorithm>
#include <optional>

namespace pecan {

bool Independent(const AnalysisContext& context, EventIndex a, EventIndex b) {
  return !context.locksets.Exclusive(a, b) && context.por.Concurrent(a, b);
}

namespace {

// Can event e sit between A's events local-1 and local (local == size: after A's last event)?
bool SlotFits(const AnalysisContext& context, const std::vector<EventIndex>& a_events,
              uint64_t local, EventIndex e) {
  if (local < a_events.size()) {
    const EventIndex x = a_events[local];
    if (context.por.Ordered(x, e)) return false;
    if (context.locksets.Exclusive(x, e)) return false;
  }
  if (local > 0 && context.por.Ordered(e, a_events[local - 1])) return false;
  return true;
}

}  // namespace

namespace {

// One attempt at placing the events. Preferred: an event stays where it is when that is inside
// its window, else takes the fitting slot nearest to its place. Earliest: every event takes the
// earliest fitting slot of its window; events of one thread must not cross, so that choice
// leaves the most room to the thread's later events and finds a placement whenever one exists.
bool PlaceEvents(const AnalysisContext& context, const std::vector<EventIndex>& events,
                 const std::vector<uint32_t>& thread_symbols, bool earliest,
                 std::vector<Move>* found) {
  const size_t k = events.size();
  const uint32_t a_symbol = thread_symbols[0];
  const ThreadId a_thread = context.trace.thread[events[0]];
  const std::vector<EventIndex>& a_events = context.por.ThreadEvents(a_thread);

  // Slots already taken by each other thread symbol, to keep its events from crossing.
  std::vector<std::pair<uint32_t, uint64_t>> last_slot;
  for (size_t q = 0; q < k; ++q) {
    if (thread_symbols[q] == a_symbol) continue;
    const EventIndex e = events[q];
    // Window of A's local indices: slots lo+1 .. hi, where slot s means "just before A's event s".
    uint64_t lo = 0;  // slot 0 = before A's first event
    uint64_t hi = a_events.size();
    for (size_t p = 0; p < k; ++p) {
      if (thread_symbols[p] != a_symbol) continue;
      const uint64_t local = context.por.LocalIndex(events[p]);
      if (p < q) lo = std::max(lo, local + 1);
      if (p > q) hi = std::min(hi, local);
    }
    for (const auto& [symbol, slot] : last_slot) {
      if (symbol == thread_symbols[q]) lo = std::max(lo, slot);
    }
    if (lo > hi) return false;

    // Where e already sits: the slot before A's first event after e in the trace.
    const uint64_t in_place = static_cast<uint64_t>(
        std::upper_bound(a_events.begin(), a_events.end(), e) - a_events.begin());
    std::optional<uint64_t> slot;
    if (earliest) {
      for (uint64_t s = lo; s <= hi && !slot; ++s) {
        if (s == in_place || SlotFits(context, a_events, s, e)) slot = s;
      }
    } else if (in_place >= lo && in_place <= hi) {
      slot = in_place;
    } else if (in_place > hi) {
      // e comes later: move it back, as little as possible (latest slot first).
      for (uint64_t s = hi + 1; s-- > lo && !slot;) {
        if (SlotFits(context, a_events, s, e)) slot = s;
      }
    } else {
      // e comes earlier: delay it, as little as possible (earliest slot first).
      for (uint64_t s = lo; s <= hi && !slot; ++s) {
        if (SlotFits(context, a_events, s, e)) slot = s;
      }
    }
    if (!slot) return false;
    if (*slot < in_place) found->push_back(Move{e, a_events[*slot]});
    if (*slot > in_place) found->push_back(Move{e, a_events[*slot - 1]});
    bool updated = false;
    for (auto& [symbol, taken] : last_slot) {
      if (symbol == thread_symbols[q]) {
        taken = *slot;
        updated = true;
      }
    }
    if (!updated) last_slot.emplace_back(thread_symbols[q], *slot);
  }
  return true;
}

}  // namespace

bool CanReorder(const AnalysisContext& context, const std::vector<EventIndex>& events,
                const std::vector<uint32_t>& thread_symbols, std::vector<Move>* moves) {
  std::vector<Move> found;
  if (!PlaceEvents(context, events, thread_symbols, false, &found)) {
    // Staying in place (or nearby) can leave a later event of the same thread no slot.
    found.clear();
    if (!PlaceEvents(context, events, thread_symbols, true, &found)) return false;
  }
  if (moves) moves->insert(moves->end(), found.begin(), found.end());
  return true;
}

}  // namespace pecan
