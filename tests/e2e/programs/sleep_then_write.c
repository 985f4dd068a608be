/* main sleeps for argv[1] seconds (default none) before its last write of `counter`; the sleep
   is not instrumented. Recorded with 0 and replayed with a long sleep under a short
   --timeout, the clip needs main's write next while main sleeps: the replay must end by its time
   bound, soon after it, not when the sleep ends. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int counter;

static void* worker(void* arg) {
  (void)arg;
  counter += 1;
  return NULL;
}

int main(int argc, char** argv) {
  unsigned seconds = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_join(thread, NULL);
  sleep(seconds);
  counter += 1;
  printf("counter %d\n", counter);
  return 0;
}
