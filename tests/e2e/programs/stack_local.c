// Threads that keep their work on their own stacks: each worker sums a local array many times,
// and main, after handing each worker the address of its own slot in `results` (so main's
// frame is shared from pthread_create on), does the same in a function it calls later (a
// deeper frame, which stays unshared). Nothing but `results` is reached by two threads.
#include <pthread.h>
#include <stdio.h>

enum { kRounds = 1000, kValues = 64 };

static long SumLocal(long seed) {
  long values[kValues];
  long sum = 0;
  for (int round = 0; round < kRounds; round++) {
    for (int i = 0; i < kValues; i++) values[i] = seed + round + i;
    for (int i = 0; i < kValues; i++) sum += values[i];
  }
  return sum;
}

static void* worker(void* arg) {
  long* result = arg;
  *result = SumLocal(*result);
  return NULL;
}

int main(void) {
  long results[2] = {1, 2};
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) pthread_create(&threads[t], NULL, worker, &results[t]);
  long own = SumLocal(3);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  printf("%ld %ld %ld\n", results[0], results[1], own);
  return 0;
}
