/* A worker sums a small table 1000 times over (thousands of repeated accesses, which the
   recorder counts instead of recording), then stores the sum in `total` without any
   synchronization. main waits a while (uninstrumented sleep), reads `total` and checks it: in a
   normal run the worker is long done. The race on `total` (write line 18, read line 27) is
   real: its clip has main read first, the replay must let the worker run its counted repeats
   before its write, and the assertion then fails. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int table[4] = {1, 2, 3, 4};
static long total;

static void* worker(void* arg) {
  long sum = 0;
  for (int i = 0; i < 4000; ++i) sum += table[i % 4];
  total = sum;
  (void)arg;
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  usleep(50 * 1000);
  long seen = total;
  assert(seen == 10000);
  pthread_join(thread, NULL);
  printf("total %ld\n", seen);
  return 0;
}
