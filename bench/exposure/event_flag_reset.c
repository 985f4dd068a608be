// event_flag_reset: main raises the `go` flag, does its own share, then resets the flag for the
// next round; a worker that had not looked at the flag yet spins forever, and so does main.
// Lines: 14, 25 (marked BUG)
// Expected failure: hang
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int go, worker_done;

static void *worker(void *arg) {
  (void)arg;
  while (!atomic_load(&go)) usleep(50); // BUG: misses a go that was raised and reset
  atomic_store(&worker_done, 1);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  usleep(1000);         // load the round's input
  atomic_store(&go, 1);
  usleep(10000);        // main's own share of the round
  atomic_store(&go, 0); // BUG: reset before the worker is known to have seen it
  while (!atomic_load(&worker_done)) usleep(50);
  pthread_join(t, NULL);
  return 0;
}
