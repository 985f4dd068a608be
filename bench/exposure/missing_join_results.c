// missing_join_results: the workers are detached and main adds up their partial sums after its
// own (slower) part, trusting they are done by then; nothing waits for them.
// Lines: 31, 35 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

#define WORKERS 4
#define CHUNK 1000

static int data[WORKERS * CHUNK];
static long partial[WORKERS];

static void *sum_chunk(void *arg) {
  int w = (int)(long)arg;
  long s = 0;
  for (int i = w * CHUNK; i < (w + 1) * CHUNK; i++) s += data[i];
  partial[w] = s;
  return NULL;
}

static void write_progress_report(void) { usleep(10000); }

int main(void) {
  for (int i = 0; i < WORKERS * CHUNK; i++) data[i] = 1;
  for (long w = 0; w < WORKERS; w++) {
    pthread_t t;
    pthread_create(&t, NULL, sum_chunk, (void *)w);
    pthread_detach(t); // BUG: nobody joins the workers
  }
  write_progress_report();
  long total = 0;
  for (int w = 0; w < WORKERS; w++) total += partial[w]; // BUG: may read before a worker wrote
  assert(total == WORKERS * CHUNK);
  return 0;
}
