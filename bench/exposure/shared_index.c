// shared_index: writers claim a slot by reading `next_slot` under the lock, copy their entry
// without the lock, then store the incremented index under the lock again; two writers can claim
// the same slot, and one entry is lost (atomicity violation on a shared index).
// Lines: 20, 24 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 8

static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_slot;
static char entries[SLOTS][32];

static void append(const char *message) {
  pthread_mutex_lock(&index_lock);
  int slot = next_slot; // BUG: the claim is not held across the copy
  pthread_mutex_unlock(&index_lock);
  strncpy(entries[slot], message, sizeof entries[slot] - 1);
  pthread_mutex_lock(&index_lock);
  next_slot = slot + 1; // BUG: may overwrite another writer's increment
  pthread_mutex_unlock(&index_lock);
}

static void *connection(void *arg) {
  (void)arg;
  append("connected");
  return NULL;
}

static void *authenticator(void *arg) {
  (void)arg;
  usleep(5000); // checks the credentials
  append("authenticated");
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, connection, NULL);
  pthread_create(&b, NULL, authenticator, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(next_slot == 2);
  assert(entries[0][0] != '\0' && entries[1][0] != '\0');
  return 0;
}
