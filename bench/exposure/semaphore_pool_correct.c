// semaphore_pool_correct: six clients share a pool of two connections guarded by a counting
// semaphore; at most two are ever in use.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

#define CLIENTS 6
#define CONNECTIONS 2

static sem_t free_connections;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int in_use, served;

static void *client(void *arg) {
  (void)arg;
  for (int i = 0; i < 3; i++) {
    sem_wait(&free_connections);
    pthread_mutex_lock(&lock);
    in_use++;
    assert(in_use <= CONNECTIONS);
    served++;
    pthread_mutex_unlock(&lock);
    pthread_mutex_lock(&lock);
    in_use--;
    pthread_mutex_unlock(&lock);
    sem_post(&free_connections);
  }
  return NULL;
}

int main(void) {
  pthread_t t[CLIENTS];
  sem_init(&free_connections, 0, CONNECTIONS);
  for (int i = 0; i < CLIENTS; i++) pthread_create(&t[i], NULL, client, NULL);
  for (int i = 0; i < CLIENTS; i++) pthread_join(t[i], NULL);
  assert(served == CLIENTS * 3 && in_use == 0);
  sem_destroy(&free_connections);
  return 0;
}
