// pipe_handoff.c through a Unix stream socket pair: main sets `shared`, then sends one byte;
// the worker receives it, then reads and writes `shared`. No race on `shared`.
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>

static int sockets[2];
static int shared;

static void* worker(void* arg) {
  (void)arg;
  char byte;
  if (recv(sockets[1], &byte, 1, 0) != 1) return NULL;
  shared = shared + 1; /* after the hand-off */
  return NULL;
}

int main(void) {
  pthread_t thread;
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sockets) != 0) return 1;
  pthread_create(&thread, NULL, worker, NULL);
  shared = 41; /* before the hand-off */
  const char byte = 1;
  if (send(sockets[0], &byte, 1, 0) != 1) return 1;
  pthread_join(thread, NULL);
  printf("shared %d\n", shared);
  return 0;
}
