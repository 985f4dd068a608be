/* A thread whose local main reads through a published pointer (so the thread's stack is shared
   from that local up, and its later write recorded), then a second thread that glibc gives the
   same stack once the first was joined: its own local traffic there starts unrecorded again. */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>

static volatile long* _Atomic published;
static sem_t read_done;

static void* first(void* arg) {
  (void)arg;
  volatile long local = 1;
  atomic_store(&published, &local);
  sem_wait(&read_done);
  local = 2; /* recorded: main reached this stack */
  printf("local1 %p\n", (void*)&local);
  return NULL;
}

static void* second(void* arg) {
  (void)arg;
  volatile long local = 3; /* a new thread on the stack: not recorded */
  local = 4;
  printf("local2 %p\n", (void*)&local);
  return NULL;
}

int main(void) {
  sem_init(&read_done, 0, 0);
  pthread_t thread;
  pthread_create(&thread, NULL, first, NULL);
  volatile long* seen;
  while ((seen = atomic_load(&published)) == NULL) {
  }
  printf("read %ld\n", *seen);
  sem_post(&read_done);
  pthread_join(thread, NULL);
  pthread_create(&thread, NULL, second, NULL);
  pthread_join(thread, NULL);
  return 0;
}
