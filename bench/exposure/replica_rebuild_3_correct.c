// replica_rebuild_3_correct: the fixed twin; try_begin_rebuild() checks and increments the
// count in one critical section, so at most 2 of 3 replicas ever rebuild at once.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <string.h>

#define REPLICAS 3
#define MAX_REBUILDING 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int rebuilding;
static char replica_data[REPLICAS][64];

static int try_begin_rebuild(void) {
  pthread_mutex_lock(&lock);
  int ok = rebuilding < MAX_REBUILDING;
  if (ok) rebuilding++;
  assert(rebuilding <= MAX_REBUILDING);
  pthread_mutex_unlock(&lock);
  return ok;
}

static void end_rebuild(void) {
  pthread_mutex_lock(&lock);
  rebuilding--;
  pthread_mutex_unlock(&lock);
}

static void *replica(void *arg) {
  int r = (int)(long)arg;
  if (try_begin_rebuild()) {
    memset(replica_data[r], r, sizeof replica_data[r]);
    end_rebuild();
  }
  return NULL;
}

int main(void) {
  pthread_t t[REPLICAS];
  for (long r = 0; r < REPLICAS; r++) pthread_create(&t[r], NULL, replica, (void *)r);
  for (int r = 0; r < REPLICAS; r++) pthread_join(t[r], NULL);
  return 0;
}
