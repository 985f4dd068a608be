// Lazy initialization with double-checked locking and no atomics: the instance is published
// before it is initialized, so a second thread can take the fast path and use it half-built.
//
// Bug: get_config() publishes the new Config (line 32) before load() fills it in (line 22),
// and its fast path (line 29) reads `instance` without the lock. A second thread that checks
// between the two sees a non-null instance, skips the lock, and reads max_connections (line 41)
// before it is set: the assertion at line 42 fails.
// Normal run: the second thread starts 50 ms later and finds a complete Config. Exits 0.
// Expected with pecan hunt: a confirmed race between lines 22 and 41 whose replay with the read
// first fails the assertion at line 42; confirmed (benign) races between line 32 and the unlocked
// reads of `instance` itself (lines 29 and 36).
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
    std::lock_guard<std::mutex> guard(instance_lock);
    if (instance == nullptr) {
      instance = new Config(); /* BUG: published */
      instance->load();
    }
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
