// A request counter that two connection handlers bump without a lock, and a limit handed over
// under a mutex. The counter's `hits++` is one bug that analysis sees as several findings
// (read-write, write-read and write-write races), and its replay fails the final assertion. The
// limit is written before the flag that publishes it, and main reads it only once it sees the
// flag (checked under the mutex, 100 ms later): the analysis, which does not take a lock
// hand-off for an order, predicts a race on `limit` that replay refutes (with main's critical
// section first, main never reads it). The long C++ names are as real code has them; the reports
// must wrap them (the report layout test).
#include <pthread.h>
#include <unistd.h>

#include <cassert>
#include <cstdio>

namespace service::telemetry::collectors {

template <typename Protocol>
struct RequestCounterForIncomingConnectionHandlers {
  static long hits;
  static void RecordIncomingRequestAndUpdateThroughputStatistics(int requests) {
    for (int i = 0; i < requests; i++) hits++;  // BUG: neither atomic nor locked
  }
};
template <typename Protocol>
long RequestCounterForIncomingConnectionHandlers<Protocol>::hits = 0;

struct Http11WithKeepAliveAndPipelining {};

}  // namespace service::telemetry::collectors

using Counter = service::telemetry::collectors::RequestCounterForIncomingConnectionHandlers<
    service::telemetry::collectors::Http11WithKeepAliveAndPipelining>;

constexpr int kRequests = 2;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int limit;        // published through limit_ready
static int limit_ready;  // under lock

static void* HandleConnections(void* publish) {
  if (publish != nullptr) {
    limit = 100;
    pthread_mutex_lock(&lock);
    limit_ready = 1;
    pthread_mutex_unlock(&lock);
  }
  Counter::RecordIncomingRequestAndUpdateThroughputStatistics(kRequests);
  return nullptr;
}

int main() {
  pthread_t first, second;
  int publish = 1;
  pthread_create(&first, nullptr, HandleConnections, &publish);
  pthread_create(&second, nullptr, HandleConnections, nullptr);
  usleep(100 * 1000);
  pthread_mutex_lock(&lock);
  const bool ready = limit_ready != 0;
  pthread_mutex_unlock(&lock);
  const int seen = ready ? limit : -1;
  pthread_join(first, nullptr);
  pthread_join(second, nullptr);
  std::printf("hits %ld, limit %d\n", Counter::hits, seen);
  assert(Counter::hits == 2 * kRequests);
  return 0;
}
