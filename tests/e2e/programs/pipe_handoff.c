// A hand-off through a pipe: main sets `shared`, then writes one byte to a pipe; the worker
// reads the byte, then reads and writes `shared`. The kernel orders the write before the read,
// so the accesses to `shared` never race (pecan must predict nothing on it).
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];
static int shared;

static void* worker(void* arg) {
  (void)arg;
  char byte;
  if (read(fds[0], &byte, 1) != 1) return NULL;
  shared = shared + 1; /* after the hand-off */
  return NULL;
}

int main(void) {
  pthread_t thread;
  if (pipe(fds) != 0) return 1;
  pthread_create(&thread, NULL, worker, NULL);
  shared = 41; /* before the hand-off */
  const char byte = 1;
  if (write(fds[1], &byte, 1) != 1) return 1;
  pthread_join(thread, NULL);
  printf("shared %d\n", shared);
  return 0;
}
