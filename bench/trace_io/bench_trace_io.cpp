// bench_trace_io: writes a realistic N-event trace (default 10M) with TraceWriter, streaming it
// from a generator, then reads it back with TraceReader::Next. Each phase runs in its own child
// process so that its peak RSS (getrusage) is its own. Prints the figures README.md quotes.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "bench/trace_io/synthetic_workload.h"
#include "trace_format/error.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"

namespace {

struct Options {
  uint64_t events = 10'000'000;
  uint32_t workers = 8;
  uint32_t mean_run = 64;
  uint32_t chunk_events = pecan::TraceWriterOptions{}.chunk_events;
  int zstd_level = pecan::TraceWriterOptions{}.zstd_level;
  std::string file;
  bool keep = false;
};

// What a phase measured, sent from the child to the parent through a pipe.
struct PhaseResult {
  double seconds = 0;
  uint64_t events = 0;
  uint64_t bytes = 0;
  uint64_t checksum = 0;  // keeps the reader's work observable
  long peak_rss_kib = 0;
  double cpu_seconds = 0;  // user + system time of the child: fair on a busy machine
  char error[200] = {};
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

PhaseResult WritePhase(const Options& o) {
  PhaseResult r;
  pecan::bench::SyntheticWorkload workload({o.workers, o.mean_run, 1});
  pecan::TraceMeta meta;
  meta.producer = "bench_trace_io";
  meta.program = workload.module().path;
  meta.settings.chunk_events = o.chunk_events;
  meta.settings.zstd_level = o.zstd_level;
  meta.settings.func_events = true;
  auto start = std::chrono::steady_clock::now();
  pecan::TraceWriter writer(o.file, meta, {o.chunk_events, o.zstd_level});
  writer.AddModule(workload.module());
  for (size_t i = 0; i < workload.threads().size(); ++i)
    writer.AddThread(static_cast<pecan::ThreadId>(i), workload.threads()[i]);
  for (size_t i = 0; i < workload.sites().size(); ++i)
    writer.AddSite(static_cast<pecan::SiteId>(i), workload.sites()[i]);
  for (const auto& n : workload.names()) writer.AddName(n);
  for (uint64_t i = 0; i < o.events; ++i) writer.Append(workload.Next());
  writer.Finish(pecan::ProgramExitInfo{true, true, 0, 0});
  r.seconds = Seconds(start);
  r.events = writer.events_written();
  r.bytes = writer.bytes_written();
  return r;
}

PhaseResult ReadPhase(const Options& o) {
  PhaseResult r;
  auto start = std::chrono::steady_clock::now();
  pecan::TraceReader reader(o.file);
  pecan::EventBatch batch;
  while (reader.Next(batch)) {
    r.events += batch.count();
    for (size_t i = 0; i < batch.count(); ++i) r.checksum += batch.addr[i] ^ batch.site[i];
  }
  r.seconds = Seconds(start);
  r.bytes = reader.file_bytes();
  return r;
}

// Runs `phase` in a child process and returns what it measured, with its own peak RSS.
template <typename Phase>
PhaseResult RunInChild(Phase phase, const Options& o) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    PhaseResult r;
    try {
      r = phase(o);
    } catch (const std::exception& e) {
      std::snprintf(r.error, sizeof r.error, "%s", e.what());
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    r.peak_rss_kib = usage.ru_maxrss;
    r.cpu_seconds = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                    (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    ssize_t ignored = write(fds[1], &r, sizeof r);
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  PhaseResult r;
  ssize_t n = read(fds[0], &r, sizeof r);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (n != sizeof r) throw std::runtime_error("benchmark child died");
  if (r.error[0] != 0) throw std::runtime_error(r.error);
  return r;
}

void Usage() {
  std::printf(
      "usage: bench_trace_io [--events N] [--workers N] [--mean-run N] [--chunk-events N]\n"
      "                      [--zstd-level N] [--file PATH] [--keep]\n"
      "Writes a synthetic N-event trace (default 10,000,000; 8 workers) and reads it back,\n"
      "printing write MB/s, read events/s, bytes/event on disk and each phase's peak RSS.\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        Usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--events")
      o.events = std::stoull(value());
    else if (a == "--workers")
      o.workers = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--mean-run")
      o.mean_run = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--chunk-events")
      o.chunk_events = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--zstd-level")
      o.zstd_level = std::stoi(value());
    else if (a == "--file")
      o.file = value();
    else if (a == "--keep")
      o.keep = true;
    else {
      Usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (o.file.empty())
    o.file = (std::filesystem::temp_directory_path() /
              ("bench_trace_io-" + std::to_string(getpid()) + ".pecan"))
                 .string();
  try {
    PhaseResult w = RunInChild(WritePhase, o);
    PhaseResult r = RunInChild(ReadPhase, o);
    if (r.events != w.events) throw std::runtime_error("read back a different number of events");
    double mb = static_cast<double>(w.bytes) / 1e6;
    std::printf("trace: %llu events, %u workers, mean run %u, chunk %u events, zstd level %d\n",
                static_cast<unsigned long long>(w.events), o.workers, o.mean_run, o.chunk_events,
                o.zstd_level);
    std::printf("on disk:  %.2f MB, %.3f bytes/event\n", mb,
                static_cast<double>(w.bytes) / w.events);
    double event_mb = static_cast<double>(w.events) * sizeof(pecan::Event) / 1e6;
    std::printf(
        "write:    %.2f s wall, %.2f s CPU: %.1f M events/s = %.0f MB/s of %zu-byte "
        "events in, %.1f MB/s of trace file out (per CPU second), peak RSS %.1f MiB\n",
        w.seconds, w.cpu_seconds, w.events / w.cpu_seconds / 1e6, event_mb / w.cpu_seconds,
        sizeof(pecan::Event), mb / w.cpu_seconds, w.peak_rss_kib / 1024.0);
    std::printf(
        "read:     %.2f s wall, %.2f s CPU: %.1f M events/s (streaming Next, per CPU "
        "second), peak RSS %.1f MiB\n",
        r.seconds, r.cpu_seconds, r.events / r.cpu_seconds / 1e6, r.peak_rss_kib / 1024.0);
    std::printf("(checksum %llx)\n", static_cast<unsigned long long>(r.checksum));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_trace_io: %s\n", e.what());
    if (!o.keep) std::filesystem::remove(o.file);
    return 1;
  }
  if (!o.keep) std::filesystem::remove(o.file);
  return 0;
}
