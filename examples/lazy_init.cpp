// Lazy initialization gone wrong: the creator publishes the new instance under the lock but
// fills it in only after releasing the lock, so a second thread can use it half-built.
//
// Bug: get_config() publishes the new Config (line 35) inside the lock but calls load()
// (line 23) after releasing it, and its fast path (line 30) reads `instance` without the lock.
// A second thread that arrives in between sees a non-null instance, skips the lock, and reads
// max_connections (line 46) before load() sets it: the assertion at line 47 fails.
// Normal run: the second thread starts 50 ms later and finds a complete Config. Exits 0.
// Expected with pecan hunt: confirmed races between lines 23 and 46 (max_connections) and between
// lines 35 and 30 (instance). The replay of a race runs its two accesses in the order the
// recording did not show: for (23, 46) the read comes first and the assertion at line 47
// fails; the other predictions need a value the read cannot see and are refuted by replay.
#include <cassert>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

struct Config {
  int max_connections = 0;
  void load() { max_connections = 64; /* BUG: initialized after publication */ }
};

Config* instance = nullptr;
std::mutex instance_lock;

Config* get_config() {
  if (instance == nullptr) { /* BUG: unsynchronized fast-path check */
    bool created = false;
    {
      std::lock_guard<std::mutex> guard(instance_lock);
      if (instance == nullptr) {
        instance = new Config(); /* BUG: published */
        created = true;
      }
    }
    if (created) instance->load();  // outside the lock, so that loading does not block others
  }
  return instance; /* BUG: unsynchronized read */
}

void serve(const char* who) {
  Config* config = get_config();
  int limit = config->max_connections; /* BUG: used */
  assert(limit == 64);                 /* ERROR: saw a half-built Config */
  std::printf("%s: limit %d\n", who, limit);
}

}  // namespace

int main() {
  std::thread first([] { serve("first"); });
  std::thread second([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    serve("second");
  });
  first.join();
  second.join();
  delete instance;
  return 0;
}
