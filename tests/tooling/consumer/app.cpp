// The consumer's program: two threads add to the tally library's total, each addition marked as
// an atomic region with pecan's annotation header (found through pecan::rt's include folder).
#include <pecan/annotations.h>

#include <cstdio>
#include <thread>
#include <vector>

extern "C" void TallyAdd(long amount);
extern "C" long TallyTotal();

int main() {
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 500; ++i) {
        pecan_region_begin(1);
        TallyAdd(1);
        pecan_region_end(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::printf("tally=%ld\n", TallyTotal());
  return 0;
}
