// order_flag_before_data: the publisher sets `ready` before it fills the table, each step under
// the lock; a reader that runs between the two critical sections sums an empty table.
// Lines: 16, 30 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ready;
static int table[4];

static void *publisher(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ready = 1; // BUG: the flag is published before the data it guards
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  for (int i = 0; i < 4; i++) table[i] = i + 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void *stats_reader(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  if (ready) {
    int sum = 0;
    for (int i = 0; i < 4; i++) sum += table[i];
    assert(sum == 10); // BUG: fails when read between the two critical sections
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t p, r;
  pthread_create(&p, NULL, publisher, NULL);
  pthread_create(&r, NULL, stats_reader, NULL);
  pthread_join(p, NULL);
  pthread_join(r, NULL);
  return 0;
}
