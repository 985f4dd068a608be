// self_deadlock_rare_path: push() holds the queue lock and, only when the queue is full, calls
// report_overflow(), which takes the same non-recursive lock again; the producer deadlocks itself.
// Lines: 17, 25 (marked BUG)
// Expected failure: deadlock
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <unistd.h>

#define CAPACITY 2
#define MESSAGES 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int queued, delivered, dropped;

static void report_overflow(void) {
  pthread_mutex_lock(&lock); // BUG: the caller already holds `lock`
  dropped++;
  pthread_mutex_unlock(&lock);
}

static void push(void) {
  pthread_mutex_lock(&lock);
  if (queued == CAPACITY)
    report_overflow(); // BUG: rare path, only when the consumer has fallen behind
  else
    queued++;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

static void *consumer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (delivered + dropped < MESSAGES) {
    if (queued > 0) {
      queued--;
      delivered++;
    } else {
      pthread_cond_wait(&changed, &lock);
    }
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t c;
  pthread_create(&c, NULL, consumer, NULL);
  for (int i = 0; i < MESSAGES; i++) {
    usleep(3000); // the next message arrives
    push();
  }
  pthread_join(c, NULL);
  return 0;
}
