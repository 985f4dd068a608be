/* Ad-hoc synchronization through a plain flag: the writer sets `data`, then `ready`; the reader
   spins on `ready`, then reads `data`. The hybrid model cannot see the flag's ordering, so it
   predicts a race on `data` (line 12 / line 20) that cannot happen: the replay that tries to run
   the read first diverges in the spin loop. The race on `ready` itself is real. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static int data;
static volatile int ready;

static void* writer(void* arg) {
  (void)arg;
  data = 42;
  ready = 1;
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, writer, NULL);
  while (!ready) {
  }
  int seen = data;
  assert(seen == 42);
  pthread_join(thread, NULL);
  printf("data %d\n", seen);
  return 0;
}
