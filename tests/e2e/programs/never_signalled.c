/* A wait nobody signals: the worker waits on `ready` (line 15) for `started`, which main was
   meant to set and signal before joining, but the line that would is missing. Every run hangs:
   the worker waits forever, main waits in pthread_join (line 24). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int started;
static int work_done;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!started) pthread_cond_wait(&ready, &lock);
  work_done = 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_join(thread, NULL);
  printf("work done %d\n", work_done);
  return 0;
}
