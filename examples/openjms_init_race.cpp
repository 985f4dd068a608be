// The OpenJMS initialization race (PECAN Figure 6): a connection's multiplexer is published
// without the lock its readers take, so a reader that runs first finds it missing and fails.
//
// Bug: invoke() copies the multiplexer under the connection's lock (line 29) and fails when it
// is still null (line 31); setInvocationHandler() stores it without taking the lock (line 36).
// The lock therefore orders nothing, and the read can run before the write.
// Normal run: the client thread waits before invoking, so the handler is always installed
// first; the program prints "delivered" and exits 0.
// Expected with pecan hunt: one confirmed race between lines 36 and 29; the replay that lets
// the read run first aborts at line 31 (std::logic_error thrown, uncaught).
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace {

struct Multiplexer {
  int deliveries = 0;
};

class MultiplexedManagedConnection {
 public:
  void invoke() {
    Multiplexer* multiplexer;
    {
      std::lock_guard<std::mutex> guard(lock_);
      multiplexer = multiplexer_;  // BUG: reads the field the handler wrote without the lock
    }
    if (multiplexer == nullptr) throw std::logic_error("ResourceException: no multiplexer");
    multiplexer->deliveries++;
  }

  void setInvocationHandler(Multiplexer* created) {
    multiplexer_ = created;  // BUG: published without lock_
  }

 private:
  std::mutex lock_;
  Multiplexer* multiplexer_ = nullptr;
};

MultiplexedManagedConnection connection;
Multiplexer the_multiplexer;

}  // namespace

int main() {
  std::thread client([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    connection.invoke();
  });
  std::thread setup([] { connection.setInvocationHandler(&the_multiplexer); });
  setup.join();
  client.join();
  std::printf("delivered %d\n", the_multiplexer.deliveries);
  return 0;
}
