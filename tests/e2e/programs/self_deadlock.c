/* A self-deadlock: the worker locks `table_lock` (line 18) and, on its error path, calls a
   helper that locks it again (line 11). The mutex is not recursive, so the worker waits for
   itself forever in every run; main waits in pthread_join. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int entries;

static void log_error(void) {
  pthread_mutex_lock(&table_lock);
  entries = -1;
  pthread_mutex_unlock(&table_lock);
}

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&table_lock);
  if (entries == 0) log_error();
  pthread_mutex_unlock(&table_lock);
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_join(thread, NULL);
  printf("entries %d\n", entries);
  return 0;
}
