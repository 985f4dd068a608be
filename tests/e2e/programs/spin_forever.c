/* A hang without any blocking call: the worker spins on `ready` (line 12), which main was
   meant to set but never does (the line that would is missing); main spins until the worker
   says it is done. Both threads keep running forever in every run. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready, finished;

static void* worker(void* arg) {
  (void)arg;
  while (!atomic_load(&ready)) {
  }
  atomic_store(&finished, 1);
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  while (!atomic_load(&finished)) {
  }
  pthread_join(thread, NULL);
  printf("finished\n");
  return 0;
}
