// main hands a worker the address of its local `shared` through pthread_create's argument and
// writes it right after, without waiting: the worker's read (line 13) races with main's write
// (line 22). The write happens before the worker reads, so only the creator's own recording of
// its stack (the argument points into it) can see it.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void* reader(void* arg) {
  int* value = arg;
  usleep(20 * 1000);
  int seen;
  seen = *value; /* BUG: races with main's write */
  printf("read %d\n", seen);
  return NULL;
}

int main(void) {
  int shared = 1;
  pthread_t thread;
  pthread_create(&thread, NULL, reader, &shared);
  shared = 2; /* BUG: races with the worker's read */
  pthread_join(thread, NULL);
  return 0;
}
