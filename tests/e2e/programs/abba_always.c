/* A lock-order deadlock in every run: `forward` holds `a` (line 14) and `backward` holds `b`
   (line 25) when both reach the barrier, then each asks for the other's lock (lines 16 and 27).
   Main waits in pthread_join (line 40). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold_one;
static int moved;

static void* forward(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&b);
  moved += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void* backward(void* arg) {
  (void)arg;
  pthread_mutex_lock(&b);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&a);
  moved += 2;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  pthread_t first;
  pthread_t second;
  pthread_barrier_init(&both_hold_one, NULL, 2);
  pthread_create(&first, NULL, forward, NULL);
  pthread_create(&second, NULL, backward, NULL);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  printf("moved %d\n", moved);
  return 0;
}
