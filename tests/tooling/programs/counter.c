// Test program for the tooling tests: two threads add to a global under a mutex, main prints the
// total. `counter exit N` ends with status N, `counter signal N` raises signal N at the end,
// `counter echo` copies one line of stdin to stdout first.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kIncrementsPerThread = 1000 };

long shared_counter;
static pthread_mutex_t counter_mutex = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void AddOne(void) {
  pthread_mutex_lock(&counter_mutex);
  shared_counter = shared_counter + 1;  // SITE: counter-write
  pthread_mutex_unlock(&counter_mutex);
}

static void* Worker(void* unused) {
  (void)unused;
  for (int i = 0; i < kIncrementsPerThread; ++i) AddOne();
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "echo") == 0) {
    char line[256];
    if (fgets(line, sizeof line, stdin) != NULL) fputs(line, stdout);
  }
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, Worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("counter=%ld\n", shared_counter);
  fflush(stdout);
  if (argc > 2 && strcmp(argv[1], "exit") == 0) return atoi(argv[2]);
  if (argc > 2 && strcmp(argv[1], "signal") == 0) raise(atoi(argv[2]));
  return 0;
}
