// bench_analyzer: generates realistic traces of 1e5, 1e6, 1e7 events in memory, runs Analyze
// with every built-in pattern on each (in a child process, so each size's peak memory is its
// own), and prints time per pattern family, the child's CPU time, peak RSS and the growth
// exponents; before and after the sizes, the machine's memory latency (memory_latency.h).
//   bench_analyzer [--sizes 1e5,1e6,1e7] [--workers 8] [--seed 1] [--threads 0] [--from-file DIR]
//                  [--patterns SPEC] [--indexed]
// --workers: worker threads of the simulated program; --threads: AnalysisOptions::threads
// (0 = one per core). --from-file: each trace is written to DIR as a .pecan file first (in a
// child of its own), and the measured child reads it the way `pecan analyze` does
// (ReadTraceForAnalysis: only the events the patterns can use) before Analyze: "gen s" is then
// that read, and "trace MB" the events held. --patterns: AnalysisOptions::patterns (default
// all); with --from-file and race patterns only, the measured child runs the streaming race
// search on the file (streaming_races.h: "gen s" 0, "analyze s" both passes over the file)
// unless --indexed asks for the read and Analyze as above.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/analysis_trace.h"
#include "analyzer/streaming_analysis.h"
#include "bench/analyzer/memory_latency.h"
#include "bench/analyzer/realistic_trace.h"
#include "trace_format/trace_writer.h"

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Peak resident memory of this process so far, in MB (VmHWM).
double PeakRssMb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

double TraceMb(const pecan::Trace& trace) {
  size_t per_event = sizeof(pecan::ThreadId) + sizeof(pecan::EventKind) + sizeof(uint8_t) +
                     sizeof(uint32_t) + sizeof(uint64_t) + sizeof(pecan::SiteId);
  return static_cast<double>(trace.size_events() * per_event) / (1024.0 * 1024.0);
}

// One size, measured in this process; results as "key value" lines. With a `file`, the trace
// is written there (when `write`) or read from it for the analysis.
struct Setup {
  unsigned threads = 0;
  std::string patterns = "all";
  bool indexed = false;  // never the streaming search
};

std::string Measure(uint64_t events, uint32_t workers, uint64_t seed, const Setup& setup,
                    const std::string& file, bool write) {
  std::ostringstream out;
  pecan::AnalysisOptions options;
  options.patterns = setup.patterns;
  options.threads = setup.threads;
  auto start = Clock::now();
  pecan::Trace trace;
  pecan::AnalysisResult result;
  const bool streaming = !file.empty() && !write && !setup.indexed && pecan::Streams(options);
  if (streaming) {
    out << "generate 0\n";
    out << "threads 0\n";
    out << "trace_mb 0\n";
    out << "rss_before " << PeakRssMb() << "\n";
    result = pecan::AnalyzeStreaming(file, options);
    out << "events " << result.stats.events << "\n";
    out << "analyze " << SecondsSince(start) << "\n";
  } else if (file.empty() || write) {
    trace = pecan::bench::GenerateRealisticTrace({events, workers, seed});
    if (write) {
      pecan::WriteTrace(file, trace);
      return "written 1\n";
    }
  } else {
    trace = pecan::ReadTraceForAnalysis(file, options);
  }
  if (!streaming) {
    out << "generate " << SecondsSince(start) << "\n";
    out << "events " << trace.RecordedEvents() << "\n";
    out << "threads " << trace.threads.size() << "\n";
    out << "trace_mb " << TraceMb(trace) << "\n";
    out << "rss_before " << PeakRssMb() << "\n";
    start = Clock::now();
    result = pecan::Analyze(trace, options);
    out << "analyze " << SecondsSince(start) << "\n";
  }
  out << "peak_rss " << PeakRssMb() << "\n";
  out << "findings " << result.findings.size() << "\n";
  out << "shared_locations " << result.stats.shared_locations << "\n";
  out << "candidates " << result.stats.candidates << "\n";
  std::map<std::string, uint64_t> by_pattern;
  for (const auto& finding : result.findings) ++by_pattern[finding.pattern];
  for (const auto& [pattern, count] : by_pattern)
    out << "count_" << pattern << " " << count << "\n";
  for (const auto& [family, seconds] : result.stats.seconds_by_family)
    out << "family_" << family << " " << seconds << "\n";
  return out.str();
}

// Runs Measure in a child process and parses its lines.
std::map<std::string, double> MeasureInChild(uint64_t events, uint32_t workers, uint64_t seed,
                                             const Setup& setup, const std::string& file = "",
                                             bool write_file = false) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) std::exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fds[0]);
    std::string text = Measure(events, workers, seed, setup, file, write_file);
    ssize_t written = write(pipe_fds[1], text.data(), text.size());
    _exit(written == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  std::map<std::string, double> values;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_analyzer: the run with %llu events failed\n",
                 static_cast<unsigned long long>(events));
    return values;
  }
  std::istringstream lines(text);
  std::string key;
  double value = 0;
  while (lines >> key >> value) values[key] = value;
  // The child's CPU time, user and system: all of it is the measured work (and none of it the
  // parent's latency probe).
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  values["cpu"] = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  return values;
}

double Slope(double x1, double y1, double x2, double y2) {
  return std::log(y2 / y1) / std::log(x2 / x1);
}

// Least-squares slope of log(y) over log(x).
double FitSlope(const std::vector<double>& x, const std::vector<double>& y) {
  double n = static_cast<double>(x.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {100'000, 1'000'000, 10'000'000};
  uint32_t workers = 8;
  uint64_t seed = 1;
  Setup setup;
  unsigned& threads = setup.threads;
  std::string directory;
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--indexed") {
      setup.indexed = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) flag = "--help";
    std::string value = flag == "--help" ? "" : argv[i + 1];
    if (flag == "--sizes") {
      sizes.clear();
      std::istringstream items(value);
      for (std::string item; std::getline(items, item, ',');)
        sizes.push_back(static_cast<uint64_t>(std::stod(item)));
    } else if (flag == "--workers") {
      workers = static_cast<uint32_t>(std::stoul(value));
    } else if (flag == "--seed") {
      seed = std::stoull(value);
    } else if (flag == "--threads") {
      threads = static_cast<unsigned>(std::stoul(value));
    } else if (flag == "--from-file") {
      directory = value;
    } else if (flag == "--patterns") {
      setup.patterns = value;
    } else {
      std::fprintf(stderr,
                   "usage: bench_analyzer [--sizes 1e5,1e6,1e7] [--workers N] [--seed S] "
                   "[--threads N] [--from-file DIR] [--patterns SPEC] [--indexed]\n");
      return 2;
    }
  }

  std::printf(
      "pecan analyzer benchmark: realistic traces, %u workers, seed %llu, patterns %s, search "
      "threads %s%s\n",
      workers, static_cast<unsigned long long>(seed), setup.patterns.c_str(),
      threads == 0 ? "one per core" : std::to_string(threads).c_str(),
      directory.empty() ? "" : "; read from .pecan files as pecan analyze reads them");
  std::printf(
      "(family columns are search time per family; families run in parallel, so they\n"
      " may add up to more than \"analyze s\", which is the wall time of Analyze)\n\n");
  // The machine's speed of the moment, beside the figures it shapes (memory_latency.h).
  std::printf("memory latency before: %.0f ns per load (8 MiB pointer chase)\n\n",
              pecan::bench::MemoryLatencyNs());
  std::printf("%10s %7s %8s %9s %8s %8s %8s %9s %8s %10s %8s %8s %8s %9s\n", "events", "threads",
              "gen s", "analyze s", "cpu s", "index s", "race s", "atomic s", "asv s", "events/s",
              "findings", "shared", "trace MB", "peak MB");
  std::vector<double> xs, times, memories;
  for (uint64_t size : sizes) {
    std::string file;
    if (!directory.empty()) {
      file = directory + "/realistic-" + std::to_string(size) + "-w" + std::to_string(workers) +
             "-s" + std::to_string(seed) + ".pecan";
      if (access(file.c_str(), R_OK) != 0 &&
          MeasureInChild(size, workers, seed, setup, file, /*write=*/true).empty())
        return 1;
    }
    auto v = MeasureInChild(size, workers, seed, setup, file);
    if (v.empty()) return 1;
    std::printf(
        "%10.0f %7.0f %8.2f %9.2f %8.2f %8.2f %8.2f %9.2f %8.2f %10.3g %8.0f %8.0f %8.0f %9.0f\n",
        v["events"], v["threads"], v["generate"], v["analyze"], v["cpu"], v["family_index"],
        v["family_race"], v["family_atomicity"], v["family_asv"], v["events"] / v["analyze"],
        v["findings"], v["shared_locations"], v["trace_mb"], v["peak_rss"]);
    std::fflush(stdout);
    xs.push_back(v["events"]);
    times.push_back(v["analyze"]);
    memories.push_back(v["peak_rss"]);
  }
  if (xs.size() >= 2) {
    std::printf("\ngrowth exponent of analysis time (log-log slope):");
    for (size_t i = 1; i < xs.size(); ++i)
      std::printf(" %.0e->%.0e: %.2f;", xs[i - 1], xs[i],
                  Slope(xs[i - 1], times[i - 1], xs[i], times[i]));
    std::printf(" fit: %.2f\n", FitSlope(xs, times));
    std::printf("growth exponent of peak RSS: fit %.2f\n", FitSlope(xs, memories));
  }
  std::printf("\nmemory latency after: %.0f ns per load\n", pecan::bench::MemoryLatencyNs());
  return 0;
}
