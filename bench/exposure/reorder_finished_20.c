// reorder_finished_20: 20 detached workers count themselves finished, then add their result, in two
// separately locked steps; main polls the counter and can read the total before the last add.
// Lines: 20, 23 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

#define WORKERS 20

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static int finished;
static long total;

static void *worker(void *arg) {
  long result = (long)arg * 2;
  pthread_mutex_lock(&count_lock);
  finished++; // BUG: counted as finished before its result is in
  pthread_mutex_unlock(&count_lock);
  pthread_mutex_lock(&total_lock);
  total += result; // BUG
  pthread_mutex_unlock(&total_lock);
  return NULL;
}

static int finished_workers(void) {
  pthread_mutex_lock(&count_lock);
  int n = finished;
  pthread_mutex_unlock(&count_lock);
  return n;
}

int main(void) {
  for (long i = 1; i <= WORKERS; i++) {
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)i);
    pthread_detach(t);
  }
  while (finished_workers() < WORKERS) usleep(100);
  pthread_mutex_lock(&total_lock);
  assert(total == (long)WORKERS * (WORKERS + 1)); // fails if the last result is not in yet
  pthread_mutex_unlock(&total_lock);
  return 0;
}
