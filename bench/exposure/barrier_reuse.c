// barrier_reuse: a hand-written barrier waits for `count` to return to 0 and has no generation
// number; a fast thread re-entering for the next round bumps `count` before a slow waiter wakes,
// the waiter goes back to sleep, and both wait forever.
// Lines: 23 (marked BUG)
// Expected failure: hang
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <unistd.h>

#define THREADS 2
#define ROUNDS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_arrived = PTHREAD_COND_INITIALIZER;
static int count;

static void barrier_wait(void) {
  pthread_mutex_lock(&lock);
  if (++count == THREADS) {
    count = 0;
    pthread_cond_broadcast(&all_arrived);
  } else {
    while (count != 0) // BUG: the next round's arrivals make count non-zero again
      pthread_cond_wait(&all_arrived, &lock);
  }
  pthread_mutex_unlock(&lock);
}

static void *stepper(void *arg) {
  (void)arg;
  for (int round = 0; round < ROUNDS; round++) {
    usleep(3000); // read this round's input block
    barrier_wait();
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, stepper, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  return 0;
}
