// A worker publishes the address of its local `slot` through a global pointer; a second thread
// writes the slot through it (line 16) while the owner, later, reads it without synchronizing
// with the writer (line 28). The barrier only keeps the owner's frame alive until both are done.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static int* _Atomic published;
static pthread_barrier_t done;

static void* writer(void* arg) {
  (void)arg;
  int* slot;
  while ((slot = atomic_load_explicit(&published, memory_order_acquire)) == NULL) usleep(100);
  *slot = 42; /* BUG: races with the owner's read */
  pthread_barrier_wait(&done);
  return NULL;
}

static void* owner(void* arg) {
  (void)arg;
  int slot = 0;
  int busy = 0;
  for (int i = 0; i < 1000; i++) busy += i; /* local traffic, not recorded */
  atomic_store_explicit(&published, &slot, memory_order_release);
  usleep(50 * 1000);
  int seen = slot; /* BUG: races with the writer's write */
  printf("owner read %d (%d)\n", seen, busy);
  pthread_barrier_wait(&done);
  return NULL;
}

int main(void) {
  pthread_barrier_init(&done, NULL, 2);
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, owner, NULL);
  pthread_create(&threads[1], NULL, writer, NULL);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  pthread_barrier_destroy(&done);
  return 0;
}
