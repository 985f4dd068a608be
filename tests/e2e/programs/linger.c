/* Two threads race on `counter`, then the program lingers, taking a lock in a loop, until it is
   killed (or two minutes passed): the signal tests signal pecan while it runs. Environment:
   LINGER_WHEN=record|replay lingers only when pecan records or replays it (told apart by
   PECAN_CLIP and PECAN_TRACE, which the runtime leaves; any other value: never), default always;
   LINGER_READY=FILE is created once it lingers; LINGER_IGNORE=1 ignores SIGINT, SIGTERM and SIGHUP,
   so only SIGKILL ends it; LINGER_FORK=1 forks a child first that lingers too (pecan must end it as
   well). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kLingerMicroseconds = 120 * 1000 * 1000, kStepMicroseconds = 1000 };

static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  (void)arg;
  counter++;
  return NULL;
}

static int should_linger(void) {
  const char* when = getenv("LINGER_WHEN");
  if (when == NULL || *when == '\0') return 1;
  const char* mode = getenv("PECAN_CLIP") ? "replay" : getenv("PECAN_TRACE") ? "record" : "off";
  return strcmp(mode, when) == 0;
}

int main(void) {
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) pthread_create(&threads[i], NULL, worker, NULL);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  printf("counter %d\n", counter);
  fflush(stdout);
  if (!should_linger()) return 0;
  if (getenv("LINGER_IGNORE") != NULL) {
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
  }
  if (getenv("LINGER_FORK") != NULL && fork() == 0) {
    usleep(kLingerMicroseconds);
    _exit(0);
  }
  const char* ready = getenv("LINGER_READY");
  if (ready != NULL) {
    FILE* file = fopen(ready, "w");
    if (file != NULL) fclose(file);
  }
  for (int waited = 0; waited < kLingerMicroseconds; waited += kStepMicroseconds) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    usleep(kStepMicroseconds);
  }
  return 0;
}
