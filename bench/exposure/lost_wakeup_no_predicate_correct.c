// lost_wakeup_no_predicate_correct: the fixed twin; the worker waits in a loop on `job_ready`,
// so a signal sent before it waits is not lost.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_posted = PTHREAD_COND_INITIALIZER;
static int job;
static int job_ready;

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!job_ready) pthread_cond_wait(&job_posted, &lock);
  int mine = job;
  pthread_mutex_unlock(&lock);
  return mine == 42 ? NULL : (void *)1;
}

static void load_job(void) { usleep(10000); }

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  load_job();
  pthread_mutex_lock(&lock);
  job = 42;
  job_ready = 1;
  pthread_cond_signal(&job_posted);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
