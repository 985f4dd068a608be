// lazy_init_twice: get_connection() checks for an existing connection and installs a new one in
// two separately locked steps; two callers can both open a connection (one leaks).
// Lines: 27, 30 (marked BUG)
// Expected failure: assertion
#include <atomic>
#include <cassert>
#include <chrono>
#include <mutex>
#include <thread>

static std::atomic<int> connections_opened{0};

struct Connection {
  Connection() { connections_opened.fetch_add(1); }
  int fd = 3;
};

static std::mutex conn_mutex;
static Connection *conn = nullptr;

static bool has_connection() {
  std::lock_guard<std::mutex> guard(conn_mutex);
  return conn != nullptr;
}

static Connection *get_connection() {
  if (!has_connection()) { // BUG: check and install are separate critical sections
    auto *fresh = new Connection();
    std::lock_guard<std::mutex> guard(conn_mutex);
    conn = fresh; // BUG: may overwrite (and leak) another caller's connection
  }
  std::lock_guard<std::mutex> guard(conn_mutex);
  return conn;
}

int main() {
  std::thread a([] { assert(get_connection()->fd == 3); });
  std::thread b([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5)); // parses its request first
    assert(get_connection()->fd == 3);
  });
  a.join();
  b.join();
  assert(connections_opened.load() == 1);
  delete conn;
  return 0;
}
