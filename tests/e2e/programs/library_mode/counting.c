// A shared library built for recording (pecan_instrument on a SHARED target) in a program that is
// not: its two threads race on `hits` (line 17, no lock) while `guarded` is under a lock, and each
// allocates and frees a block. Built uninstrumented as well, for a host with no instrumentation.
#include "counting.h"

#include <pthread.h>
#include <stdlib.h>

enum { kThreads = 2 };

static long hits = 0;
static long guarded = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* count(void* arg) {
  long* mine = malloc(sizeof *mine);
  hits += 1; /* BUG: unprotected read-modify-write */
  *mine = 1;
  pthread_mutex_lock(&lock);
  guarded += *mine;
  pthread_mutex_unlock(&lock);
  free(mine);
  return arg;
}

long counting_run(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; i++) pthread_create(&threads[i], NULL, count, NULL);
  for (int i = 0; i < kThreads; i++) pthread_join(threads[i], NULL);
  return hits + guarded;
}
