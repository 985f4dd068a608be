/* 64 threads hammering striped locks, shared counters and an atomic for argv[1] milliseconds
   (default 1000): the trace must hold exactly the events the program counts (no loss). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 64
#define LOCKS 4

static pthread_mutex_t locks[LOCKS] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                       PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static long shared_counts[LOCKS];
static _Atomic long total;
static _Atomic int stop;
static long own_slots[THREADS];
static long iterations_of[THREADS];

static void* hammer(void* arg) {
  long id = (long)arg;
  long i = 0;
  for (;; ++i) {
    /* one relaxed ATOMIC_LOAD of `stop` every 64 iterations */
    if (i % 64 == 0 && atomic_load_explicit(&stop, memory_order_relaxed)) break;
    int which = (int)((id + i) % LOCKS);
    pthread_mutex_lock(&locks[which]);
    shared_counts[which] += 1; /* one READ and one WRITE */
    pthread_mutex_unlock(&locks[which]);
    atomic_fetch_add_explicit(&total, 1, memory_order_relaxed);
    own_slots[id] = i; /* one WRITE */
  }
  iterations_of[id] = i; /* one WRITE */
  return NULL;
}

int main(int argc, char** argv) {
  long milliseconds = argc > 1 ? atol(argv[1]) : 1000;
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; ++i) pthread_create(&threads[i], NULL, hammer, (void*)i);
  struct timespec pause = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
  nanosleep(&pause, NULL);
  atomic_store_explicit(&stop, 1, memory_order_relaxed);
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  long sum = 0, iterations = 0;
  for (int i = 0; i < LOCKS; ++i) sum += shared_counts[i];
  for (int i = 0; i < THREADS; ++i) iterations += iterations_of[i];
  printf("shared_counts %p %zu\n", (void*)shared_counts, sizeof(shared_counts));
  printf("own_slots %p %zu\n", (void*)own_slots, sizeof(own_slots));
  printf("total %p\n", (void*)&total);
  for (int i = 0; i < LOCKS; ++i) printf("lock%d %p\n", i, (void*)&locks[i]);
  printf("count threads %d\n", THREADS);
  printf("count iterations %ld\n", iterations);
  return sum == iterations && total == sum ? 0 : 1;
}
