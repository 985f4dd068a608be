/* A hang without any blocking call: the worker polls `ready` (line 14), which main was meant
   to set but never does (the line that would is missing); main polls until the worker says it
   is done. Both threads keep running forever in every run. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int ready, finished;

static void* worker(void* arg) {
  (void)arg;
  while (!atomic_load(&ready)) usleep(100);
  atomic_store(&finished, 1);
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  while (!atomic_load(&finished)) usleep(100);
  pthread_join(thread, NULL);
  printf("finished\n");
  return 0;
}
