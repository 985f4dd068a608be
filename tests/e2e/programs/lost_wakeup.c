/* A lost wake-up. The worker sets `done` and signals without taking the mutex; main checks
   `done` under the mutex and waits. If main reads `done` (line 27) before the worker writes it
   (line 17) and the worker's signal comes before main waits, nobody wakes main: the program
   hangs. In a normal run main first sleeps, the worker is long done, and main never waits.
   The race on `done` hatches in replay; whether the run then hangs depends on the order after
   it, which the replay's --seed decides, and a hang is reported as a deadlock. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int done;

static void* worker(void* arg) {
  (void)arg;
  done = 1;
  pthread_cond_signal(&changed);
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  usleep(50 * 1000);
  pthread_mutex_lock(&lock);
  while (!done) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  pthread_join(thread, NULL);
  printf("done\n");
  return 0;
}
