/* Two workers take the same lock once each. A clip that makes the second take it while the
   first still holds it is impossible: its replay must end as a deadlock, never hang. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  total += (long)arg;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t first, second;
  pthread_create(&first, NULL, worker, (void*)1);
  pthread_create(&second, NULL, worker, (void*)2);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  printf("total %ld\n", total);
  return total == 3 ? 0 : 1;
}
