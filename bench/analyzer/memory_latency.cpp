// A pointer chase through a random cycle: one dependent load at a time.
#include "bench/analyzer/memory_latency.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace pecan::bench {
namespace {

double Chase(unsigned mebibytes) {
  const size_t n = size_t{mebibytes} << 20 >> 2;  // 4-byte entries
  // One cycle through every entry, in a random order: no stride for the prefetchers to follow.
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
  std::vector<uint32_t> next(n);
  for (size_t k = 0; k < n; ++k) next[order[k]] = order[(k + 1) % n];
  // Once around to bring the pages in, then once more timed.
  uint32_t at = 0;
  for (size_t k = 0; k < n; ++k) at = next[at];
  const size_t loads = n;
  const auto start = std::chrono::steady_clock::now();
  for (size_t k = 0; k < loads; ++k) at = next[at];
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // `at` decides nothing, but the compiler must still compute it.
  volatile uint32_t sink = at;
  (void)sink;
  return seconds / static_cast<double>(loads) * 1e9;
}

}  // namespace

double MemoryLatencyNs(unsigned mebibytes) {
  int fds[2];
  if (pipe(fds) != 0) return 0;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return 0;
  }
  if (pid == 0) {
    close(fds[0]);
    const double ns = Chase(mebibytes);
    const ssize_t written = write(fds[1], &ns, sizeof ns);
    _exit(written == static_cast<ssize_t>(sizeof ns) ? 0 : 1);
  }
  close(fds[1]);
  double ns = 0;
  if (read(fds[0], &ns, sizeof ns) != static_cast<ssize_t>(sizeof ns)) ns = 0;
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return ns;
}

}  // namespace pecan::bench
