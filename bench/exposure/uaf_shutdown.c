// uaf_shutdown: the stats thread announces `stopped` and only then flushes its counters; main
// frees the counters as soon as it sees `stopped`, so the final flush can use freed memory.
// Lines: 25, 26 (marked BUG)
// Expected failure: crash
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

struct stats {
  long ticks;
  long flushes;
};

static struct stats *stats;
static atomic_int stop_requested, stopped;

static void *stats_thread(void *arg) {
  (void)arg;
  while (!atomic_load(&stop_requested)) {
    stats->ticks++;
    usleep(100);
  }
  atomic_store(&stopped, 1); // BUG: announced before the last use of `stats`
  stats->flushes++;          // BUG: final flush, may run after main freed `stats`
  return NULL;
}

int main(void) {
  pthread_t t;
  stats = calloc(1, sizeof *stats);
  pthread_create(&t, NULL, stats_thread, NULL);
  usleep(500); // serve some requests
  atomic_store(&stop_requested, 1);
  while (!atomic_load(&stopped)) usleep(50);
  free(stats);
  stats = NULL;
  pthread_join(t, NULL);
  return 0;
}
