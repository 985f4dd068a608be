/* Every pthread synchronization the recorder interposes, with known counts, in C.
   Prints "name 0xADDR" lines and "count name N" lines for the test to match against. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <pecan/annotations.h>

#define WORKERS 4
#define ITERATIONS 50

static pthread_mutex_t plain_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive_mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_mutex_t cond_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static sem_t semaphore;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static long counter;           /* under plain_mutex */
static long recursive_counter; /* under recursive_mutex */
static long rw_value;
static long spin_value;
static int ready;
static int once_value;
static _Atomic long atomic_counter;
static _Atomic int flag;
static _Atomic int cas_target;
static long annotated;

static void init_once(void) {
  once_value = 42;
}

static void* worker(void* arg) {
  long id = (long)arg;
  pthread_once(&once, init_once);
  assert(once_value == 42);
  for (int i = 0; i < ITERATIONS; ++i) {
    pthread_mutex_lock(&plain_mutex);
    counter++;
    pthread_mutex_unlock(&plain_mutex);

    pthread_mutex_lock(&recursive_mutex);
    pthread_mutex_lock(&recursive_mutex); /* inner: not recorded */
    recursive_counter++;
    pthread_mutex_unlock(&recursive_mutex);
    pthread_mutex_unlock(&recursive_mutex);

    if (i % 2 == 0) {
      pthread_rwlock_rdlock(&rwlock);
      long seen = rw_value;
      (void)seen;
      pthread_rwlock_unlock(&rwlock);
    } else {
      pthread_rwlock_wrlock(&rwlock);
      rw_value++;
      pthread_rwlock_unlock(&rwlock);
    }

    pthread_spin_lock(&spin);
    spin_value++;
    pthread_spin_unlock(&spin);

    atomic_fetch_add_explicit(&atomic_counter, 1, memory_order_relaxed);
  }
  pthread_barrier_wait(&barrier);
  pthread_barrier_wait(&barrier);

  if (id == 0) {
    /* Consumer of the condition variable and the semaphore. */
    pthread_mutex_lock(&cond_mutex);
    while (!ready) pthread_cond_wait(&cond, &cond_mutex);
    pthread_mutex_unlock(&cond_mutex);
    sem_wait(&semaphore);
    while (atomic_load_explicit(&flag, memory_order_acquire) == 0) {
    }
    pecan_happens_after(&annotated);
    long seen = annotated;
    (void)seen;
  }
  return NULL;
}

int main(void) {
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  pthread_barrier_init(&barrier, NULL, WORKERS);
  sem_init(&semaphore, 0, 0);

  /* Allocation reuse: free a block and get the same address back. */
  char* first = malloc(48);
  first[0] = 1;
  free(first);
  char* second = malloc(48);
  second[0] = 2;

  pthread_t threads[WORKERS];
  for (long i = 0; i < WORKERS; ++i) pthread_create(&threads[i], NULL, worker, (void*)i);

  pecan_region_begin(7);
  annotated = 5;
  pecan_region_end(7);
  pecan_happens_before(&annotated);
  atomic_store_explicit(&flag, 1, memory_order_release);

  pthread_mutex_lock(&cond_mutex);
  ready = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&cond_mutex);
  sem_post(&semaphore);

  int expected = 0;
  int swapped = atomic_compare_exchange_strong_explicit(&cas_target, &expected, 9,
                                                        memory_order_acq_rel, memory_order_acquire);
  expected = 0; /* wrong on purpose: this one fails */
  int failed = atomic_compare_exchange_strong_explicit(&cas_target, &expected, 10,
                                                       memory_order_seq_cst, memory_order_relaxed);

  for (int i = 0; i < WORKERS; ++i) pthread_join(threads[i], NULL);

  printf("plain_mutex %p\n", (void*)&plain_mutex);
  printf("recursive_mutex %p\n", (void*)&recursive_mutex);
  printf("rwlock %p\n", (void*)&rwlock);
  printf("spin %p\n", (void*)&spin);
  printf("cond_mutex %p\n", (void*)&cond_mutex);
  printf("cond %p\n", (void*)&cond);
  printf("barrier %p\n", (void*)&barrier);
  printf("semaphore %p\n", (void*)&semaphore);
  printf("once %p\n", (void*)&once);
  printf("atomic_counter %p\n", (void*)&atomic_counter);
  printf("flag %p\n", (void*)&flag);
  printf("cas_target %p\n", (void*)&cas_target);
  printf("annotated %p\n", (void*)&annotated);
  printf("first %p\n", (void*)first);
  printf("second %p\n", (void*)second);
  printf("count workers %d\n", WORKERS);
  printf("count iterations %d\n", ITERATIONS);
  printf("count swapped %d\n", swapped);
  printf("count failed %d\n", failed);
  free(second);
  return counter == WORKERS * ITERATIONS && recursive_counter == WORKERS * ITERATIONS &&
                 atomic_counter == WORKERS * ITERATIONS && swapped && !failed && cas_target == 9
             ? 0
             : 1;
}
