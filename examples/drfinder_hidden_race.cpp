// DrFinder's motivating example (Cai & Cao, ESEC/FSE 2015, Figure 2): two races hidden behind
// lock hand-offs. A happens-before detector sees each pair ordered by an unlock -> lock edge.
//
// Bug: the starter writes service_port (line 47) and service_ready (line 42) without a lock; the
// client reads service_ready (line 63) and service_port (line 65) without one. In every normal run
// the starter's stats_lock release precedes the client's stats_lock acquisition and its
// directory_lock release precedes the client's, so the reads see the writes. If either read
// runs first, the assertion at line 66 fails.
// Normal run: the client waits 50 ms; it prints "connected to port 8080" and exits 0.
// Expected with pecan hunt: two confirmed races, lines (47,65) and (42,63); pecan's partial order
// leaves out lock hand-offs, so it predicts both from one run, and each replay with the read
// first fails the assertion at line 66.
#include <cassert>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

std::mutex directory_lock;  // DrFinder's lock k
std::mutex stats_lock;      // DrFinder's lock n
int directory_entries = 0;  // protected by directory_lock
int stats_updates = 0;      // protected by stats_lock

int service_port = 0;   // x: written by the starter, read by the client
int service_ready = 0;  // y

void register_in_directory() {
  std::lock_guard<std::mutex> guard(directory_lock);
  directory_entries++;
}

void update_stats() {
  std::lock_guard<std::mutex> guard(stats_lock);
  stats_updates++;
}

// f1 -> f2: the starter's path to the two locks.
void announce_service() {
  register_in_directory();
  service_ready = 1; /* m2: BUG */
  update_stats();
}

void start_service() {
  service_port = 8080; /* m1: BUG */
  announce_service();
}

int lookup_in_directory() {
  std::lock_guard<std::mutex> guard(directory_lock);
  return directory_entries;
}

int read_stats() {
  std::lock_guard<std::mutex> guard(stats_lock);
  return stats_updates;
}

void use_service() {
  read_stats();
  int ready = service_ready; /* m3: BUG */
  lookup_in_directory();
  int port = service_port;            /* m4: BUG */
  assert(ready == 1 && port == 8080); /* ERROR */
  std::printf("connected to port %d\n", port);
}

}  // namespace

int main() {
  std::thread starter(start_service);
  std::thread client([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    use_service();
  });
  starter.join();
  client.join();
  return 0;
}
