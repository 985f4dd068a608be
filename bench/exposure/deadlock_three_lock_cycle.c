// deadlock_three_lock_cycle: each mover locks queue i, then queue i+1 (mod 3) to move an item
// along a ring of queues; three movers each holding their first lock form a 3-lock cycle.
// Lines: 21, 22 (marked BUG)
// Expected failure: deadlock
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

#define QUEUES 3

struct queue {
  pthread_mutex_t lock;
  int items;
};

static struct queue queues[QUEUES];

static void *mover(void *arg) {
  int i = (int)(long)arg;
  struct queue *src = &queues[i], *dst = &queues[(i + 1) % QUEUES];
  pthread_mutex_lock(&src->lock); // BUG: ring order; the last mover closes a cycle
  pthread_mutex_lock(&dst->lock); // BUG
  src->items--;
  dst->items++;
  pthread_mutex_unlock(&dst->lock);
  pthread_mutex_unlock(&src->lock);
  return NULL;
}

int main(void) {
  pthread_t t[QUEUES];
  for (int i = 0; i < QUEUES; i++) {
    pthread_mutex_init(&queues[i].lock, NULL);
    queues[i].items = 5;
  }
  for (long i = 0; i < QUEUES; i++) pthread_create(&t[i], NULL, mover, (void *)i);
  for (int i = 0; i < QUEUES; i++) pthread_join(t[i], NULL);
  assert(queues[0].items + queues[1].items + queues[2].items == 15);
  return 0;
}
