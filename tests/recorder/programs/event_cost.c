/* Per-event cost: one thread streams reads and writes over an array (argv[1] passes), four
   threads do it concurrently, and a lock/atomic loop measures stamped events. Prints
   nanoseconds per instrumented access / per stamped event. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ELEMENTS 4096
#define THREADS 4

static long data[THREADS][ELEMENTS];
static int passes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic long counter;
static long guarded;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static __attribute__((noinline)) void stream(long* row) {
  for (int p = 0; p < passes; ++p) {
    for (int i = 1; i < ELEMENTS; ++i) row[i] = row[i - 1] + 1; /* one read, one write */
  }
}

static void* stream_thread(void* arg) {
  stream(data[(long)arg]);
  return NULL;
}

static void* sync_thread(void* arg) {
  long n = (long)arg;
  for (long i = 0; i < n; ++i) {
    pthread_mutex_lock(&lock);
    guarded++;
    pthread_mutex_unlock(&lock);
    atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
  }
  return NULL;
}

int main(int argc, char** argv) {
  passes = argc > 1 ? atoi(argv[1]) : 200;
  long sync_iterations = argc > 2 ? atol(argv[2]) : 200000;
  const double accesses = 2.0 * (ELEMENTS - 1) * passes;

  double start = now_ns();
  stream(data[0]);
  double single = now_ns() - start;

  pthread_t threads[THREADS];
  start = now_ns();
  for (long i = 0; i < THREADS; ++i) pthread_create(&threads[i], NULL, stream_thread, (void*)i);
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  double parallel = now_ns() - start;

  start = now_ns();
  sync_thread((void*)sync_iterations);
  double sync = now_ns() - start;

  printf("access_ns_1thread %.2f\n", single / accesses);
  printf("access_ns_%dthreads %.2f\n", THREADS, parallel / (accesses * THREADS));
  printf("sync_iteration_ns %.2f\n", sync / sync_iterations);
  printf("accesses %.0f\n", accesses * (1 + THREADS));
  return data[0][ELEMENTS - 1] > 0 ? 0 : 1;
}
