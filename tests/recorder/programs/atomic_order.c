/* Threads hammering two atomics (fetch_add and a compare-exchange loop) and a mutex. After each
   atomic, the thread writes to a mark array at the index of the value the atomic returned, so
   the trace shows what each atomic saw: in trace order, the k-th successful read-modify-write
   of a location must have seen k, and a load must have seen as many as came before it.
   Iterations per thread: argv[1]. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 8

static _Alignas(64) _Atomic long counter;
static _Alignas(64) _Atomic long cas_counter;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static long guarded;
static long* rmw_marks;  /* rmw_marks[v]: the fetch_add that returned v */
static long* load_marks; /* load_marks[v]: a load of counter returned v */
static long* cas_marks;  /* cas_marks[v]: the successful compare-exchange that replaced v */
static int iterations;

static void* hammer(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < iterations; ++i) {
    long old = atomic_fetch_add_explicit(&counter, 1, memory_order_acq_rel);
    rmw_marks[old] = 1;
    long seen = atomic_load_explicit(&counter, memory_order_acquire);
    load_marks[seen] = 1;
    long expected = atomic_load_explicit(&cas_counter, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&cas_counter, &expected, expected + 1,
                                                  memory_order_acq_rel, memory_order_relaxed)) {
    }
    cas_marks[expected] = 1;
    if ((i + id) % 8 == 0) {
      pthread_mutex_lock(&mutex);
      guarded += 1;
      pthread_mutex_unlock(&mutex);
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  iterations = argc > 1 ? atoi(argv[1]) : 1000;
  size_t total = (size_t)THREADS * iterations + 1;
  rmw_marks = calloc(total, sizeof(long));
  load_marks = calloc(total, sizeof(long));
  cas_marks = calloc(total, sizeof(long));
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; ++i) pthread_create(&threads[i], NULL, hammer, (void*)i);
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  printf("counter %p\n", (void*)&counter);
  printf("cas_counter %p\n", (void*)&cas_counter);
  printf("rmw_marks %p %zu\n", (void*)rmw_marks, total * sizeof(long));
  printf("load_marks %p %zu\n", (void*)load_marks, total * sizeof(long));
  printf("cas_marks %p %zu\n", (void*)cas_marks, total * sizeof(long));
  printf("mutex %p\n", (void*)&mutex);
  printf("count threads %d\n", THREADS);
  printf("count iterations %d\n", iterations);
  return atomic_load(&counter) == (long)(total - 1) &&
                 atomic_load(&cas_counter) == (long)(total - 1)
             ? 0
             : 1;
}
