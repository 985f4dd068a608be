// A race that a lock hand-off hides in the normal run: the writer sets `data` without the lock,
// then raises `ready` under it; the reader, 200 ms later, checks `ready` under the lock and then
// reads `data` without it. In the recorded run the unlock/lock orders the write (line 15) before
// the read (line 27) — no happens-before race — but the two accesses share no lock, and a
// schedule where the reader takes the lock first races them.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int data, ready;

static void* writer(void* arg) {
  (void)arg;
  data = 42; /* BUG: written without the lock */
  pthread_mutex_lock(&lock);
  ready = 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* reader(void* arg) {
  (void)arg;
  usleep(200 * 1000);
  pthread_mutex_lock(&lock);
  pthread_mutex_unlock(&lock);
  printf("data %d\n", data); /* BUG: read without the lock */
  return NULL;
}

int main(void) {
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, writer, NULL);
  pthread_create(&threads[1], NULL, reader, NULL);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  return 0;
}
