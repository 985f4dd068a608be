// lost_wakeup_if_not_while: consumers wait with `if` instead of `while`; a consumer woken for an
// item can find it already taken by the other consumer and takes from an empty queue.
// Lines: 19, 21 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

#define ITEMS 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static int queued;

static void *consumer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  if (queued == 0)                      // BUG: must be `while`
    pthread_cond_wait(&nonempty, &lock);
  assert(queued > 0);                   // BUG: the item may have been taken meanwhile
  queued--;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < ITEMS; i++) {
    usleep(500); // the next item arrives from the network
    pthread_mutex_lock(&lock);
    queued++;
    pthread_cond_signal(&nonempty);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t c[ITEMS], p;
  for (int i = 0; i < ITEMS; i++) pthread_create(&c[i], NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  for (int i = 0; i < ITEMS; i++) pthread_join(c[i], NULL);
  pthread_join(p, NULL);
  return 0;
}
