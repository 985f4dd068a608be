// Names of event kinds and memory orders, shared by dumps, JSON and reports.
#include "trace_format/event_kind.h"

#include <array>

namespace pecan {
namespace {
constexpr std::array<std::string_view, kEventKindCount> kKindNames = {
    "unspecified", "read",          "write",          "atomic_load", "atomic_store",
    "atomic_rmw",  "lock",          "unlock",         "read_lock",   "read_unlock",
    "fork",        "join",          "thread_begin",   "thread_end",  "wait",
    "notify",      "notify_all",    "barrier_arrive", "barrier_depart", "sem_post",
    "sem_wait",    "alloc",         "free",           "func_entry",  "func_exit",
    "region_begin", "region_end",   "hb_release",     "hb_acquire",  "fence"};
constexpr std::array<std::string_view, 6> kOrderNames = {"relaxed", "consume", "acquire",
                                                          "release", "acq_rel", "seq_cst"};
}  // namespace

std::string_view EventKindName(EventKind kind) {
  auto i = static_cast<size_t>(kind);
  return i < kKindNames.size() ? kKindNames[i] : std::string_view("invalid");
}

std::optional<EventKind> EventKindFromName(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == name) return static_cast<EventKind>(i);
  return std::nullopt;
}

std::string_view MemoryOrderName(MemoryOrder order) {
  auto i = static_cast<size_t>(order);
  return i < kOrderNames.size() ? kOrderNames[i] : std::string_view("invalid");
}

}  // namespace pecan
