/* Three stages pass items around a ring of three buffers, each stage with code of its own: the
   parser locks `raw` then `parsed` (lines 25, 26), the checker `parsed` then `checked` (lines
   35, 36), the recycler `checked` then `raw` (lines 45, 46). They start 10 ms apart, so a normal
   run never deadlocks; if each holds its first buffer at once, the three wait in a cycle.
   Expected: a lock-order deadlock (cycle of 3 locks) predicted and hatched. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

struct buffer {
  pthread_mutex_t lock;
  int items;
};
static struct buffer raw = {PTHREAD_MUTEX_INITIALIZER, 3};
static struct buffer parsed = {PTHREAD_MUTEX_INITIALIZER, 0};
static struct buffer checked = {PTHREAD_MUTEX_INITIALIZER, 0};

static void move_one(struct buffer* from, struct buffer* to) {
  if (from->items > 0) from->items--, to->items++;
}

static void* parser(void* arg) {
  (void)arg;
  pthread_mutex_lock(&raw.lock);
  pthread_mutex_lock(&parsed.lock);
  move_one(&raw, &parsed);
  pthread_mutex_unlock(&parsed.lock);
  pthread_mutex_unlock(&raw.lock);
  return NULL;
}

static void* checker(void* arg) {
  usleep(10000);
  pthread_mutex_lock(&parsed.lock);
  pthread_mutex_lock(&checked.lock);
  move_one(&parsed, &checked);
  pthread_mutex_unlock(&checked.lock);
  pthread_mutex_unlock(&parsed.lock);
  return arg;
}

static void* recycler(void* arg) {
  usleep(20000);
  pthread_mutex_lock(&checked.lock);
  pthread_mutex_lock(&raw.lock);
  move_one(&checked, &raw);
  pthread_mutex_unlock(&raw.lock);
  pthread_mutex_unlock(&checked.lock);
  return arg;
}

int main(void) {
  pthread_t stages[3];
  pthread_create(&stages[0], NULL, parser, NULL);
  pthread_create(&stages[1], NULL, checker, NULL);
  pthread_create(&stages[2], NULL, recycler, NULL);
  for (int i = 0; i < 3; i++) pthread_join(stages[i], NULL);
  printf("raw %d, parsed %d, checked %d\n", raw.items, parsed.items, checked.items);
  return raw.items + parsed.items + checked.items == 3 ? 0 : 1;
}
