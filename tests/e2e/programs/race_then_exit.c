/* A worker stores a setting without synchronization; main waits a while (uninstrumented sleep),
   reads it and exits with status 5 when it is not set. In a normal run the worker is long done.
   The race on `setting` (write line 15, read line 23) is real: its clip has main read first,
   and the program then exits with status 5 (no crash, no assertion). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { kNotSetStatus = 5 };

static int setting;

static void* worker(void* arg) {
  (void)arg;
  setting = 7;
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  usleep(50 * 1000);
  int seen = setting;
  pthread_join(thread, NULL);
  if (seen != 7) {
    fprintf(stderr, "setting not set\n");
    return kNotSetStatus;
  }
  printf("setting %d\n", seen);
  return 0;
}
