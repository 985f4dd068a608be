// order_use_before_init_correct: the fixed twin; the buffer is allocated before the logger starts.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char *log_buf;
static size_t log_len;

static void *logger(void *arg) {
  (void)arg;
  usleep(5000); // the first flush interval
  pthread_mutex_lock(&log_lock);
  assert(log_buf != NULL);
  log_len += (size_t)snprintf(log_buf + log_len, 64, "logger up\n");
  pthread_mutex_unlock(&log_lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  log_buf = calloc(1, 256);
  pthread_create(&t, NULL, logger, NULL);
  pthread_join(t, NULL);
  free(log_buf);
  return 0;
}
