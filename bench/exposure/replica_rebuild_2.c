// replica_rebuild_2: at most 1 of 2 replicas may rebuild at once, but may_start() checks the count and
// begin_rebuild() increments it in separate critical sections. Needs 2 preemptions:
// R1 checks | R2 checks and begins | R1 begins while R2 is still rebuilding.
// Lines: 20, 27 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <string.h>

#define REPLICAS 2
#define MAX_REBUILDING 1

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int rebuilding;
static char replica_data[REPLICAS][64];

static int may_start(void) {
  pthread_mutex_lock(&lock);
  int ok = rebuilding < MAX_REBUILDING; // BUG: the answer is stale by begin_rebuild()
  pthread_mutex_unlock(&lock);
  return ok;
}

static void begin_rebuild(void) {
  pthread_mutex_lock(&lock);
  rebuilding++; // BUG: not checked again
  assert(rebuilding <= MAX_REBUILDING);
  pthread_mutex_unlock(&lock);
}

static void end_rebuild(void) {
  pthread_mutex_lock(&lock);
  rebuilding--;
  pthread_mutex_unlock(&lock);
}

static void *replica(void *arg) {
  int r = (int)(long)arg;
  if (may_start()) {
    begin_rebuild();
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
