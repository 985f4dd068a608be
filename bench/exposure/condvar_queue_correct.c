// condvar_queue_correct: a bounded queue with two producers and two consumers; both waits loop
// on their predicate, so no wake-up is lost and no item is taken twice.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

#define CAPACITY 2
#define PER_PRODUCER 20

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static int items[CAPACITY], count, head;
static long consumed_sum;

static void *producer(void *arg) {
  int base = (int)(long)arg;
  for (int i = 1; i <= PER_PRODUCER; i++) {
    pthread_mutex_lock(&lock);
    while (count == CAPACITY) pthread_cond_wait(&not_full, &lock);
    items[(head + count) % CAPACITY] = base + i;
    count++;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  for (int i = 0; i < PER_PRODUCER; i++) {
    pthread_mutex_lock(&lock);
    while (count == 0) pthread_cond_wait(&not_empty, &lock);
    consumed_sum += items[head];
    head = (head + 1) % CAPACITY;
    count--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t p[2], c[2];
  for (long i = 0; i < 2; i++) pthread_create(&p[i], NULL, producer, (void *)(i * 100));
  for (int i = 0; i < 2; i++) pthread_create(&c[i], NULL, consumer, NULL);
  for (int i = 0; i < 2; i++) pthread_join(p[i], NULL);
  for (int i = 0; i < 2; i++) pthread_join(c[i], NULL);
  assert(consumed_sum == 2 * (PER_PRODUCER * (PER_PRODUCER + 1) / 2) + 100 * PER_PRODUCER);
  return 0;
}
