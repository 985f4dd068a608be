// twostage: the writer fills the header under header_lock, then derives the body from it under
// body_lock; a reader that sees the header between the two stages finds a body that disagrees.
// Lines: 19, 32 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t header_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t body_lock = PTHREAD_MUTEX_INITIALIZER;
static int header_length;
static int body_length;

static void *writer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&header_lock);
  header_length = 16; // stage 1
  pthread_mutex_unlock(&header_lock);
  pthread_mutex_lock(&body_lock); // BUG: the two stages are not one atomic update
  body_length = 16;               // stage 2
  pthread_mutex_unlock(&body_lock);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  pthread_mutex_lock(&header_lock);
  int expected = header_length;
  pthread_mutex_unlock(&header_lock);
  if (expected != 0) {
    pthread_mutex_lock(&body_lock);
    assert(body_length == expected); // BUG: fails between stage 1 and stage 2
    pthread_mutex_unlock(&body_lock);
  }
  return NULL;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  return 0;
}
