// `pecan stats`: what a trace holds — events by kind and by thread, threads, locations and
// shared locations, chunks and size on disk — read in one streaming pass.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <unordered_map>

#include "cli/command.h"
#include "trace_format/error.h"
#include "trace_format/file_kind.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_reader.h"

namespace pecan::cli {
namespace {

constexpr const char* kStatsHelp =
    R"(Reads the whole trace once (in bounded memory for .pecan files) and prints:
  events in total, by kind and by thread, and how many repeated accesses the recorder counted
  instead of recording them (pecan record --repeats); threads and sites;
  memory locations accessed (distinct addresses of reads, writes and atomics) and how many of
  them are shared (accessed by more than one thread — only those can race);
  chunks, bytes on disk and bytes per event; whether the file is complete, how the program
  ended, and the truncation warning when the recording was cut short.

Examples:
  pecan stats run.pecan
  pecan stats trace.std)";

constexpr uint32_t kSharedLocation = UINT32_MAX;

struct Counts {
  uint64_t events = 0;
  uint64_t repeats_left_out = 0;
  std::array<uint64_t, 256> by_kind{};
  std::vector<uint64_t> by_thread;
  // Address -> the only thread that accessed it so far, or kSharedLocation.
  std::unordered_map<uint64_t, uint32_t> locations;

  void Add(const Event& e) {
    ++events;
    repeats_left_out += e.repeats_before;
    ++by_kind[static_cast<uint8_t>(e.kind)];
    if (e.thread >= by_thread.size()) by_thread.resize(e.thread + 1);
    ++by_thread[e.thread];
    if (!IsAccess(e.kind)) return;
    auto [it, inserted] = locations.try_emplace(e.addr, e.thread);
    if (!inserted && it->second != e.thread) it->second = kSharedLocation;
  }
};

std::string Percent(uint64_t part, uint64_t whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%5.1f%%", whole == 0 ? 0.0 : 100.0 * part / whole);
  return text;
}

void PrintStats(const std::string& path, const Counts& c, const TraceMeta& meta,
                const std::vector<ThreadInfo>& threads, size_t sites, uint64_t file_bytes,
                const std::string& container, const std::vector<std::string>& warnings) {
  std::cout << "trace:      " << path << " (" << container << ")\n";
  if (!meta.producer.empty()) std::cout << "written by: " << meta.producer << "\n";
  if (!meta.program.empty()) {
    std::cout << "program:    " << meta.program;
    for (const auto& a : meta.args) std::cout << " " << a;
    std::cout << "\n";
  }
  std::cout << "events:     " << c.events;
  if (meta.settings.drop_repeats) {
    std::cout << " (and " << c.repeats_left_out
              << " repeated accesses counted, not recorded: see pecan record --repeats)";
  }
  std::cout << "\n";
  std::cout << "threads:    " << threads.size() << "\n";
  std::cout << "sites:      " << sites << "\n";
  uint64_t shared = 0;
  for (const auto& [addr, owner] : c.locations) shared += owner == kSharedLocation;
  std::cout << "locations:  " << c.locations.size() << " accessed, " << shared
            << " shared (accessed by more than one thread)\n";
  std::cout << "on disk:    " << file_bytes << " bytes";
  if (c.events > 0) {
    char per[32];
    std::snprintf(per, sizeof per, "%.3f", static_cast<double>(file_bytes) / c.events);
    std::cout << ", " << per << " bytes/event";
  }
  std::cout << "\n";
  if (meta.exit.known) {
    std::cout << "exit:       ";
    if (meta.exit.signal != 0) {
      std::cout << "killed by signal " << meta.exit.signal << "\n";
    } else if (meta.exit.exited) {
      std::cout << "exited with status " << meta.exit.exit_status << "\n";
    } else {
      std::cout << "unknown\n";
    }
  }
  if (meta.dropped_events > 0) std::cout << "dropped:    " << meta.dropped_events << " events\n";
  for (const auto& w : warnings) std::cout << "warning:    " << w << "\n";

  std::cout << "\nevents by kind:\n";
  std::vector<std::pair<uint64_t, int>> kinds;
  for (int k = 0; k < 256; ++k)
    if (c.by_kind[k] > 0) kinds.emplace_back(c.by_kind[k], k);
  std::sort(kinds.begin(), kinds.end(), [](auto& a, auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (auto [count, k] : kinds) {
    std::string_view name = EventKindName(static_cast<EventKind>(k));
    std::string label = name == "invalid" ? "kind" + std::to_string(k) : std::string(name);
    label.resize(std::max<size_t>(label.size(), 16), ' ');
    std::printf("  %s %12llu  %s\n", label.c_str(), static_cast<unsigned long long>(count),
                Percent(count, c.events).c_str());
  }
  std::fflush(stdout);
  std::cout << "\nevents by thread:\n";
  for (size_t t = 0; t < std::max(threads.size(), c.by_thread.size()); ++t) {
    std::string label = "T" + std::to_string(t);
    if (t < threads.size() && !threads[t].name.empty() && threads[t].name != label)
      label += "(" + threads[t].name + ")";
    if (t < threads.size() && threads[t].parent)
      label += " child " + std::to_string(threads[t].ordinal) + " of T" +
               std::to_string(*threads[t].parent);
    label.resize(std::max<size_t>(label.size(), 24), ' ');
    uint64_t count = t < c.by_thread.size() ? c.by_thread[t] : 0;
    std::printf("  %s %12llu  %s\n", label.c_str(), static_cast<unsigned long long>(count),
                Percent(count, c.events).c_str());
  }
  std::fflush(stdout);
}

int RunStats(const std::string& path) {
  Counts counts;
  if (DetectTraceFileKind(path) == TraceFileKind::kPecan) {
    TraceReader reader(path);
    EventBatch batch;
    size_t chunks = 0;
    while (reader.Next(batch)) {
      ++chunks;
      for (size_t i = 0; i < batch.count(); ++i) counts.Add(batch.event(i));
    }
    std::string container = ".pecan, " + std::to_string(chunks) +
                            (chunks == 1 ? " chunk, " : " chunks, ") +
                            (reader.complete() ? "complete" : "truncated");
    PrintStats(path, counts, reader.meta(), reader.threads(), reader.sites().size(),
               reader.file_bytes(), container, reader.warnings());
    return 0;
  }
  if (DetectTraceFileKind(path) != TraceFileKind::kStd)
    throw PecanError(path + ": not a pecan trace or STD trace");
  Trace trace = ImportStdFile(path);
  for (EventIndex i = 0; i < trace.size_events(); ++i) counts.Add(trace.event(i));
  uint64_t bytes = std::filesystem::file_size(path);
  PrintStats(path, counts, trace.meta, trace.threads, trace.sites.size(), bytes, "STD text", {});
  return 0;
}

PECAN_COMMAND("stats", "Summarize a trace: events by kind and thread, locations, size", 62,
              [](CLI::App& app) {
                auto path = std::make_shared<std::string>();
                app.footer(kStatsHelp);
                app.add_option("FILE", *path, "the trace (.pecan or STD text)")
                    ->required()
                    ->check(CLI::ExistingFile);
                return [path] { return RunStats(*path); };
              });

}  // namespace
}  // namespace pecan::cli
