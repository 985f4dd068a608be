// missing_join_results_correct: the fixed twin; main joins every worker before adding up.
// Lines: none
// Expected failure: none
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
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS * CHUNK; i++) data[i] = 1;
  for (long w = 0; w < WORKERS; w++) pthread_create(&t[w], NULL, sum_chunk, (void *)w);
  write_progress_report();
  for (int w = 0; w < WORKERS; w++) pthread_join(t[w], NULL);
  long total = 0;
  for (int w = 0; w < WORKERS; w++) total += partial[w];
  assert(total == WORKERS * CHUNK);
  return 0;
}
