// A mutex destroyed while a worker still uses it: shutdown destroys the queue's lock (line 31)
// before joining the worker that takes it (line 18). In the normal run the worker is long done
// (main waits 100 ms); a schedule where the destroy comes first has the worker lock a
// destroyed mutex (glibc then refuses with EINVAL and the count goes unprotected).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct queue {
  pthread_mutex_t lock;
  int items;
};

static void* worker(void* arg) {
  struct queue* q = arg;
  usleep(10 * 1000);
  pthread_mutex_lock(&q->lock); /* BUG: main may have destroyed it */
  q->items++;
  pthread_mutex_unlock(&q->lock);
  return NULL;
}

int main(void) {
  struct queue* q = malloc(sizeof *q);
  pthread_mutex_init(&q->lock, NULL);
  q->items = 0;
  pthread_t thread;
  pthread_create(&thread, NULL, worker, q);
  usleep(100 * 1000);
  pthread_mutex_destroy(&q->lock); /* BUG: the worker is not joined yet */
  pthread_join(thread, NULL);
  printf("items %d\n", q->items);
  free(q);
  return 0;
}
