// pipe_handoff.c through an eventfd: main sets `shared`, then adds 1 to the eventfd's counter;
// the worker's eventfd_read waits for it, then the worker reads and writes `shared`. No race.
#include <pthread.h>
#include <stdio.h>
#include <sys/eventfd.h>

static int counter;
static int shared;

static void* worker(void* arg) {
  (void)arg;
  eventfd_t value;
  if (eventfd_read(counter, &value) != 0) return NULL;
  shared = shared + 1; /* after the hand-off */
  return NULL;
}

int main(void) {
  pthread_t thread;
  counter = eventfd(0, 0);
  if (counter < 0) return 1;
  pthread_create(&thread, NULL, worker, NULL);
  shared = 41; /* before the hand-off */
  if (eventfd_write(counter, 1) != 0) return 1;
  pthread_join(thread, NULL);
  printf("shared %d\n", shared);
  return 0;
}
