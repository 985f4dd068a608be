// The control of pipe_handoff.c: the same hand-off orders `shared`, but both threads also touch
// `late` after it, main after its write and the worker after its read, with nothing between
// them: a race pecan must still predict (the pipe orders only what main did before writing).
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];
static int shared, late;

static void* worker(void* arg) {
  (void)arg;
  char byte;
  if (read(fds[0], &byte, 1) != 1) return NULL;
  shared = shared + 1; /* after the hand-off: ordered */
  late = 2;            /* BUG: races with main's write of late */
  return NULL;
}

int main(void) {
  pthread_t thread;
  if (pipe(fds) != 0) return 1;
  pthread_create(&thread, NULL, worker, NULL);
  shared = 41; /* before the hand-off */
  const char byte = 1;
  if (write(fds[1], &byte, 1) != 1) return 1;
  late = 1; /* BUG: after the hand-off, unordered with the worker */
  pthread_join(thread, NULL);
  printf("shared %d late %d\n", shared, late);
  return 0;
}
