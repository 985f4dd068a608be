/* The ways a thread ends: returning, pthread_exit from a nested function, detaching itself,
   created detached, and main's pthread_exit. Two joined threads in a row run on the same
   (reused) stack. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t detached_done;
static long shared;

__attribute__((noinline)) static void touch(volatile long* where, long value) {
  *where = value;
}

static void* stack_user(void* arg) {
  volatile long local = 0;
  touch(&local, (long)arg);
  printf("local%ld %p\n", (long)arg, (void*)&local);
  return NULL;
}

__attribute__((noinline)) static void leave_early(void) {
  shared = 1;
  pthread_exit(NULL);
}

static void* exits_nested(void* arg) {
  (void)arg;
  leave_early();
  return NULL;
}

static void* detaches_itself(void* arg) {
  (void)arg;
  pthread_detach(pthread_self());
  sem_post(&detached_done);
  return NULL;
}

static void* born_detached(void* arg) {
  (void)arg;
  sem_post(&detached_done);
  return NULL;
}

int main(void) {
  sem_init(&detached_done, 0, 0);
  pthread_t thread;
  pthread_create(&thread, NULL, stack_user, (void*)1);
  pthread_join(thread, NULL);
  pthread_create(&thread, NULL, stack_user, (void*)2);
  pthread_join(thread, NULL);

  pthread_create(&thread, NULL, exits_nested, NULL);
  pthread_join(thread, NULL);

  pthread_create(&thread, NULL, detaches_itself, NULL);
  sem_wait(&detached_done);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_create(&thread, &attr, born_detached, NULL);
  sem_wait(&detached_done);
  printf("shared %p\n", (void*)&shared);
  /* The process ends when the last thread does (with status 0), so every thread ends first. */
  pthread_exit(NULL);
}
