// order_use_before_init: main starts the logger thread, then allocates the buffer it flushes
// into; every access is locked, but nothing orders the allocation before the first flush.
// Lines: 20, 29 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char *log_buf; // allocated by main once the threads are up
static size_t log_len;

static void *logger(void *arg) {
  (void)arg;
  usleep(5000); // the first flush interval
  pthread_mutex_lock(&log_lock);
  assert(log_buf != NULL); // BUG: may run before main allocated the buffer
  log_len += (size_t)snprintf(log_buf + log_len, 64, "logger up\n");
  pthread_mutex_unlock(&log_lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, logger, NULL);
  pthread_mutex_lock(&log_lock); // BUG: initialization after the thread that uses it started
  log_buf = calloc(1, 256);
  pthread_mutex_unlock(&log_lock);
  pthread_join(t, NULL);
  free(log_buf);
  return 0;
}
