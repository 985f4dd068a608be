/* A worker publishes a pointer to a buffer without synchronization; main waits a while
   (uninstrumented sleep), reads the pointer and writes through it. In a normal run the worker is
   long done and the pointer is set. The race on `published` (write line 15, read line 23) is
   real: its clip has main read first, the pointer is still null, and the write through it
   crashes the program (SIGSEGV) after the anomaly formed. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int buffer[4];
static int* published;

static void* worker(void* arg) {
  (void)arg;
  published = buffer;
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  usleep(50 * 1000);
  int* seen = published;
  seen[0] = 1;
  pthread_join(thread, NULL);
  printf("buffer[0] %d\n", buffer[0]);
  return 0;
}
