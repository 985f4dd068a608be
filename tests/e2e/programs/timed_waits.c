/* Every thread waits on a condition with a timeout, 3 s long in all, and nobody notifies: each
   wait ends by itself, so the run is no deadlock even though no thread moves for seconds. It
   ends normally. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

/* Waits on `never` in waits of 1 s until 3 s have passed. */
static int WaitThreeSeconds(void) {
  struct timespec end;
  clock_gettime(CLOCK_REALTIME, &end);
  end.tv_sec += 3;
  int timeouts = 0;
  pthread_mutex_lock(&lock);
  for (;;) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec)) break;
    struct timespec until = now;
    until.tv_sec += 1;
    if (pthread_cond_timedwait(&never, &lock, &until) == ETIMEDOUT) ++timeouts;
  }
  pthread_mutex_unlock(&lock);
  return timeouts;
}

static void* worker(void* arg) {
  (void)arg;
  WaitThreeSeconds();
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  const int timeouts = WaitThreeSeconds();
  pthread_join(thread, NULL);
  printf("timed out %d times\n", timeouts > 0 ? 1 : 0);
  return 0;
}
