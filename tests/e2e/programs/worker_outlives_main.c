/* A worker updates a counter under its mutex for as long as the process lives; main updates it
   under the same mutex a few times and returns without joining. Every access to `counter` is
   protected, so no race may be predicted. The worker runs on while the process exits: the
   recording must keep each of its accesses only together with the LOCK before it, or the trace
   shows accesses that held no lock. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void* worker(void* arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&counter_lock);
    counter += 1;
    pthread_mutex_unlock(&counter_lock);
  }
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  for (int i = 0; i < 1000; ++i) {
    pthread_mutex_lock(&counter_lock);
    counter += 2;
    pthread_mutex_unlock(&counter_lock);
  }
  usleep(20 * 1000);
  printf("done\n");
  return 0;
}
