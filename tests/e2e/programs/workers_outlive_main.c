/* Four workers each update their own counter under their own mutex for as long as the process
   lives; main updates every counter under its mutex a hundred times and returns without joining.
   Every access to a counter is protected, so no race may be predicted. With four threads filling
   their rings and a slow trace writer (the test records with --zstd-level 19), the rings are
   often full when the recording ends: a thread whose LOCK is dropped then because its ring is
   full must not record the accesses after it when the writer's last drain makes room again. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define WORKERS 4

static pthread_mutex_t locks[WORKERS];
static long counters[WORKERS];

static void* worker(void* arg) {
  const long i = (long)arg;
  for (;;) {
    pthread_mutex_lock(&locks[i]);
    counters[i] += 1;
    pthread_mutex_unlock(&locks[i]);
  }
  return NULL;
}

int main(void) {
  pthread_t threads[WORKERS];
  for (long i = 0; i < WORKERS; ++i) pthread_mutex_init(&locks[i], NULL);
  for (long i = 0; i < WORKERS; ++i) pthread_create(&threads[i], NULL, worker, (void*)i);
  for (int round = 0; round < 100; ++round) {
    for (long i = 0; i < WORKERS; ++i) {
      pthread_mutex_lock(&locks[i]);
      counters[i] += 2;
      pthread_mutex_unlock(&locks[i]);
    }
  }
  usleep(20 * 1000);
  printf("done\n");
  return 0;
}
