// Races through libc's memory and string functions, which no compiler callback reports: a
// worker publishes its status line with memcpy (line 19) while the reporter measures and copies
// it with strlen and memcpy (lines 27, 29), and main resets the counters with memset (line 39)
// while the worker still counts (line 20). In the normal run the threads are 20 ms apart, so
// the output is always "status: ready"; other schedules print a torn or stale line.
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char status[64] = "starting";
static long counters[4];

static void* worker(void* arg) {
  (void)arg;
  usleep(10 * 1000);
  const char* text = "ready";
  size_t length = strlen(text) + 1;
  memcpy(status, text, length); /* BUG: no lock; the reporter reads the line */
  counters[1]++;                /* BUG: main may be resetting the counters */
  return NULL;
}

static void* reporter(void* arg) {
  (void)arg;
  usleep(30 * 1000);
  size_t length = strlen(status);
  char copy[64];
  memcpy(copy, status, length + 1);
  printf("status: %s\n", copy);
  return NULL;
}

int main(void) {
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, worker, NULL);
  pthread_create(&threads[1], NULL, reporter, NULL);
  usleep(60 * 1000);
  memset(counters, 0, sizeof counters); /* BUG: the worker is not joined yet */
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  return 0;
}
