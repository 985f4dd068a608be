// A use after free at shutdown: main frees the buffer a worker reads without joining the worker
// first. In the normal run the worker has long finished reading (main sleeps 100 ms), so the run
// is fine; a schedule where main's free (line 31) runs before the worker's read (line 21) is a
// use after free.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int* buffer;

static int* make_buffer(void) {
  int* block = malloc(4 * sizeof(int));
  for (int i = 0; i < 4; i++) block[i] = i + 1;
  return block;
}

static void* worker(void* arg) {
  (void)arg;
  usleep(10 * 1000);
  int value = buffer[2]; /* BUG: main may have freed the buffer */
  printf("value %d\n", value);
  return NULL;
}

int main(void) {
  buffer = make_buffer();
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  usleep(100 * 1000);
  free(buffer); /* BUG: the worker is not joined yet */
  pthread_join(thread, NULL);
  return 0;
}
