/* A reader of the configuration read-locks `config`, then locks `stats` to count the lookup
   (lines 21, 22). The tuner locks `stats` first (line 31), then takes `config`: for reading
   (argv[1] = "read", the default; line 35) it never waits for the reader, so there is no
   deadlock; for writing (argv[1] = "write"; line 33) the two can each hold one lock and wait
   for the other. The tuner starts 20 ms later, so a normal run never deadlocks.
   Expected: "read": no deadlock predicted; "write": a cycle of 2 locks predicted and hatched. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_rwlock_t config = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t stats = PTHREAD_MUTEX_INITIALIZER;
static int setting = 4;
static int lookups;
static int writes;

static void* reader(void* arg) {
  (void)arg;
  pthread_rwlock_rdlock(&config);
  pthread_mutex_lock(&stats);
  lookups += setting > 0;
  pthread_mutex_unlock(&stats);
  pthread_rwlock_unlock(&config);
  return NULL;
}

static void* tuner(void* arg) {
  usleep(20000);
  pthread_mutex_lock(&stats);
  if (arg)
    pthread_rwlock_wrlock(&config);
  else
    pthread_rwlock_rdlock(&config);
  if (arg) setting = lookups + 1, writes++;
  pthread_rwlock_unlock(&config);
  pthread_mutex_unlock(&stats);
  return NULL;
}

int main(int argc, char** argv) {
  int write = argc > 1 && strcmp(argv[1], "write") == 0;
  pthread_t r, t;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&t, NULL, tuner, write ? (void*)1 : NULL);
  pthread_join(r, NULL);
  pthread_join(t, NULL);
  printf("lookups %d, writes %d\n", lookups, writes);
  return 0;
}
