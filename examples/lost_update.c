// A lost update: two workers each add their batch to a shared counter with a plain
// read-modify-write, so one worker can overwrite the other's addition.
//
// Bug: add_batch() reads the counter (line 23) and writes it back (line 24) without a lock.
// When the second worker's read or write falls between the first worker's read and write, one
// batch is lost and the check at line 39 fails.
// Normal run: the workers start 50 ms apart, so the updates never overlap; prints
// "processed 20" and exits 0.
// Expected with pecan hunt: confirmed races on `processed` among lines 23 and 24 (read/write and
// write/write between the workers); replays that let the second worker read before the first
// one's write fail the assertion at line 39. With --regions functions, add_batch() is a unit
// of work and the same interleavings are also reported as atomicity violations (R-W-W, W-R-W).
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { kWorkers = 2, kBatch = 10, kStaggerMicros = 50000 };

long processed = 0;  // total items processed by all workers

static void add_batch(long items) {
  long before = processed;    /* BUG: read */
  processed = before + items; /* BUG: write */
}

static void* worker(void* arg) {
  long index = (long)arg;
  usleep((useconds_t)(index * kStaggerMicros));
  add_batch(kBatch);
  return NULL;
}

int main(void) {
  pthread_t workers[kWorkers];
  for (long i = 0; i < kWorkers; i++) pthread_create(&workers[i], NULL, worker, (void*)i);
  for (int i = 0; i < kWorkers; i++) pthread_join(workers[i], NULL);
  printf("processed %ld\n", processed);
  assert(processed == kWorkers * kBatch); /* ERROR: an update was lost */
  return 0;
}
