// double_checked_init_correct: double-checked initialization done right; the pointer is a
// std::atomic, published with release after the object is built and read with acquire.
// Lines: none
// Expected failure: none
#include <atomic>
#include <cassert>
#include <mutex>
#include <thread>
#include <vector>

struct Config {
  int buffer_size = 4096;
  std::vector<char> buffer = std::vector<char>(4096);
};

static std::mutex init_mutex;
static std::atomic<Config *> config{nullptr};

static Config *get_config() {
  Config *c = config.load(std::memory_order_acquire);
  if (c == nullptr) {
    std::lock_guard<std::mutex> guard(init_mutex);
    c = config.load(std::memory_order_relaxed);
    if (c == nullptr) {
      c = new Config();
      config.store(c, std::memory_order_release);
    }
  }
  return c;
}

int main() {
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; i++)
    clients.emplace_back([] {
      Config *c = get_config();
      assert(c->buffer_size == 4096 && c->buffer.size() == 4096);
    });
  for (auto &t : clients) t.join();
  delete config.load();
  return 0;
}
