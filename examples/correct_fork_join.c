// A correct fork/join computation: main fills an array, workers square disjoint slices, main
// sums the result after joining them. Thread creation and join order every shared access.
//
// Expected with pecan hunt: no finding at all (every pair of conflicting accesses is ordered by
// fork or join). Normal run: prints "sum of squares 2870" (1..20) and exits 0.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { kWorkers = 4, kPerWorker = 5, kSize = kWorkers * kPerWorker };

long values[kSize];

struct Slice {
  int begin;
  int end;
};

static void* square_slice(void* arg) {
  const struct Slice* slice = arg;
  for (int i = slice->begin; i < slice->end; i++) values[i] = values[i] * values[i];
  return NULL;
}

int main(void) {
  for (int i = 0; i < kSize; i++) values[i] = i + 1;
  pthread_t workers[kWorkers];
  struct Slice slices[kWorkers];
  for (int w = 0; w < kWorkers; w++) {
    slices[w].begin = w * kPerWorker;
    slices[w].end = (w + 1) * kPerWorker;
    pthread_create(&workers[w], NULL, square_slice, &slices[w]);
  }
  long sum = 0;
  for (int w = 0; w < kWorkers; w++) pthread_join(workers[w], NULL);
  for (int i = 0; i < kSize; i++) sum += values[i];
  printf("sum of squares %ld\n", sum);
  assert(sum == 2870);
  return 0;
}
