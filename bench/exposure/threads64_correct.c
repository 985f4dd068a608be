// threads64_correct: 64 threads each add to a mutex-protected total and a C11 atomic counter,
// then main joins them all and checks both.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define THREADS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static atomic_int arrivals;

static void *worker(void *arg) {
  long id = (long)arg;
  pthread_mutex_lock(&lock);
  total += id;
  pthread_mutex_unlock(&lock);
  atomic_fetch_add(&arrivals, 1);
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  assert(total == (long)THREADS * (THREADS - 1) / 2);
  assert(atomic_load(&arrivals) == THREADS);
  return 0;
}
