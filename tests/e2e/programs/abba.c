/* A lock-order deadlock: one worker takes `a` then `b` (line 13), the other `b` then `a` (line
   23). When each holds its first lock, both wait forever. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int moved;

static void* forward(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  moved += 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void* backward(void* arg) {
  (void)arg;
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  moved += 2;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  pthread_t first;
  pthread_t second;
  pthread_create(&first, NULL, forward, NULL);
  pthread_create(&second, NULL, backward, NULL);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  printf("moved %d\n", moved);
  return 0;
}
