// lost_wakeup_no_predicate: the worker waits on the condition variable without a predicate; if
// main signals before the worker reaches pthread_cond_wait, the signal is lost and it waits forever.
// Lines: 16, 30 (marked BUG)
// Expected failure: hang
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_posted = PTHREAD_COND_INITIALIZER;
static int job;

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  pthread_cond_wait(&job_posted, &lock); // BUG: no predicate; an earlier signal is lost
  int mine = job;
  pthread_mutex_unlock(&lock);
  return mine == 42 ? NULL : (void *)1;
}

static void load_job(void) { usleep(10000); } // reads the job description from disk

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  load_job();
  pthread_mutex_lock(&lock);
  job = 42;
  pthread_cond_signal(&job_posted); // BUG: nobody may be waiting yet
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
