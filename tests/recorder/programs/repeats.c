/* Repeated accesses: a loop that reads and writes the same two globals 1000 times with no call
   and no synchronization inside (one epoch: the recorder keeps the first of each access and
   counts the rest), then 10 more updates each in its own critical section (10 epochs). */
#include <pthread.h>
#include <stdio.h>

static volatile int flag = 1;
static volatile int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; ++i) counter = counter + flag;
  for (int i = 0; i < 10; ++i) {
    pthread_mutex_lock(&lock);
    counter = counter + 1;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  printf("flag %p\n", (void*)&flag);
  printf("counter %p\n", (void*)&counter);
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_join(thread, NULL);
  printf("count final %d\n", counter);
  return 0;
}
