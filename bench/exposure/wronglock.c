// wronglock: the receive path and the stats path both update `packets`, but each under its own
// mutex, so the two read-modify-writes can interleave and lose an update.
// Lines: 18, 28 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

#define UPDATES 3

static pthread_mutex_t rx_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long packets;

static void *receive_path(void *arg) {
  (void)arg;
  for (int i = 0; i < UPDATES; i++) {
    pthread_mutex_lock(&rx_lock); // BUG: a different lock than stats_path uses
    packets += 1;
    pthread_mutex_unlock(&rx_lock);
  }
  return NULL;
}

static void *stats_path(void *arg) {
  (void)arg;
  for (int i = 0; i < UPDATES; i++) {
    pthread_mutex_lock(&stats_lock); // BUG
    packets += 10;
    pthread_mutex_unlock(&stats_lock);
  }
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, receive_path, NULL);
  pthread_create(&b, NULL, stats_path, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(packets == UPDATES * 11);
  return 0;
}
