// deadlock_wait_holding_lock: the waiter holds io_lock while it waits on the condition variable;
// if it gets there before the flusher, the flusher blocks on io_lock and never signals.
// Lines: 28, 30 (marked BUG)
// Expected failure: deadlock
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flushed_cond = PTHREAD_COND_INITIALIZER;
static int flushed;

static void *flusher(void *arg) {
  (void)arg;
  pthread_mutex_lock(&io_lock);
  pthread_mutex_lock(&state_lock);
  flushed = 1;
  pthread_cond_signal(&flushed_cond);
  pthread_mutex_unlock(&state_lock);
  pthread_mutex_unlock(&io_lock);
  return NULL;
}

static void *waiter(void *arg) {
  (void)arg;
  usleep(10000); // prepares the report it will write after the flush
  pthread_mutex_lock(&io_lock); // BUG: still held while waiting below
  pthread_mutex_lock(&state_lock);
  while (!flushed) pthread_cond_wait(&flushed_cond, &state_lock); // BUG
  pthread_mutex_unlock(&state_lock);
  pthread_mutex_unlock(&io_lock);
  return NULL;
}

int main(void) {
  pthread_t f, w;
  pthread_create(&f, NULL, flusher, NULL);
  pthread_create(&w, NULL, waiter, NULL);
  pthread_join(f, NULL);
  pthread_join(w, NULL);
  return 0;
}
