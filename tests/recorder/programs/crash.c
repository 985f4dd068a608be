/* Ends in the way argv[1] names, after a known number of writes to `markers` (argv[2]) made
   by the main thread while a helper thread runs: the trace must hold every one of them. */
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MARKERS 1000

long markers[MAX_MARKERS];
static _Atomic int helper_started;
static _Atomic int stop_helper;
static long helper_work;

static void* helper(void* arg) {
  (void)arg;
  atomic_store(&helper_started, 1);
  while (!atomic_load_explicit(&stop_helper, memory_order_relaxed)) helper_work++;
  return NULL;
}

static void* exit_from_thread(void* arg) {
  exit((int)(long)arg);
}

static int recurse(volatile char* previous) {
  volatile char frame[512];
  frame[0] = previous != NULL ? previous[0] : 1;
  return recurse(frame) + frame[1];
}

int main(int argc, char** argv) {
  if (argc < 3) return 100;
  const char* how = argv[1];
  int count = atoi(argv[2]);
  if (count > MAX_MARKERS) count = MAX_MARKERS;
  printf("markers %p %zu\n", (void*)markers, sizeof(markers));
  fflush(stdout);

  pthread_t thread;
  pthread_create(&thread, NULL, helper, NULL);
  while (!atomic_load(&helper_started)) {
  }
  for (int i = 0; i < count; ++i) markers[i] = i + 1;

  if (strcmp(how, "abort") == 0) abort();
  if (strcmp(how, "assert") == 0) assert(markers[0] == 0);
  if (strcmp(how, "segv") == 0) *(volatile long*)(markers[0] - 1) = 1;
  if (strcmp(how, "_exit") == 0) _exit(7);
  if (strcmp(how, "exit") == 0) exit(3);
  if (strcmp(how, "sigterm") == 0) raise(SIGTERM);
  if (strcmp(how, "stackoverflow") == 0) return recurse(NULL);
  if (strcmp(how, "thread_exit") == 0) {
    pthread_t exiter;
    pthread_create(&exiter, NULL, exit_from_thread, (void*)5L);
    pthread_join(exiter, NULL);
  }
  /* "return": a normal end with status 4. */
  atomic_store(&stop_helper, 1);
  pthread_join(thread, NULL);
  return 4;
}
