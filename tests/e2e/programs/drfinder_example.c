/* A race hidden by lock order, after DrFinder's motivating example (Cai & Cao, ESEC/FSE 2015).
   The loader writes `config` without a lock (line 25), then registers under `registry_lock`;
   the client first prepares (many steps), then registers under the same lock and reads
   `config` (line 34). In a normal run the loader registers first, and its release of
   registry_lock orders its write before the client's read: a happens-before detector sees no
   race. Reversed — the client registers first — nothing orders them, and the race shows.
   Expected: DrFinder observes the race on `config` within a few runs (it postpones the loader's
   registration while the client, whose functions may take registry_lock, gets there first). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int config;
static int registered;
static long prepared;

static void register_client(void) {
  pthread_mutex_lock(&registry_lock);
  registered++;
  pthread_mutex_unlock(&registry_lock);
}

static void* loader(void* arg) {
  (void)arg;
  config = 42;
  register_client();
  return NULL;
}

static void* client(void* arg) {
  (void)arg;
  for (int i = 0; i < 200; i++) prepared += i;
  register_client();
  int seen = config;
  printf("client saw config %d\n", seen);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, loader, NULL);
  pthread_create(&b, NULL, client, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("registered %d\n", registered);
  return 0;
}
