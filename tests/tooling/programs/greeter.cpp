// Test program for the tooling tests (C++): std::threads append to a shared vector under a
// std::mutex, each append an annotated atomic region (pecan-c++ finds <pecan/annotations.h>);
// main prints how many greetings arrived.
#include <pecan/annotations.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {
std::mutex greetings_mutex;
std::vector<std::string> greetings;
}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([i] {
      pecan_region_begin(&greetings);
      {
        std::lock_guard<std::mutex> lock(greetings_mutex);
        greetings.push_back("hello from " + std::to_string(i));
      }
      pecan_region_end(&greetings);
    });
  }
  for (auto& thread : threads) thread.join();
  std::printf("greetings=%zu\n", greetings.size());
  return 0;
}
