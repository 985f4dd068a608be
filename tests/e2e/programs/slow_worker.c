/* Blocked for a long time, then on: main waits in pthread_join while the worker sleeps 3 s in
   nanosleep, which is no synchronization, so not every thread is blocked and the run is no
   deadlock. It ends normally. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int done;

static void* worker(void* arg) {
  (void)arg;
  struct timespec pause = {3, 0};
  nanosleep(&pause, NULL);
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_join(thread, NULL);
  printf("done %d\n", done);
  return 0;
}
