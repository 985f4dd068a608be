/* fork() under the recorder: the parent and the child each write their own markers; the child
   also starts a thread. argv[1] = markers written by the parent before the fork. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

long parent_markers[100];
long child_markers[100];
static _Atomic long ticks;

static void* child_thread(void* arg) {
  (void)arg;
  child_markers[50] = 1;
  atomic_fetch_add(&ticks, 1);
  return NULL;
}

static void* ticker(void* arg) {
  (void)arg;
  for (int i = 0; i < 20000; ++i) atomic_fetch_add(&ticks, 1); /* stripes busy during fork */
  return NULL;
}

int main(int argc, char** argv) {
  int before = argc > 1 ? atoi(argv[1]) : 10;
  printf("parent_markers %p %zu\n", (void*)parent_markers, sizeof(parent_markers));
  printf("child_markers %p %zu\n", (void*)child_markers, sizeof(child_markers));
  fflush(stdout);
  pthread_t busy;
  pthread_create(&busy, NULL, ticker, NULL);
  for (int i = 0; i < before; ++i) parent_markers[i] = i;
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 20; ++i) child_markers[i] = i;
    atomic_fetch_add(&ticks, 1); /* must not deadlock on a stripe held at fork time */
    pthread_t thread;
    pthread_create(&thread, NULL, child_thread, NULL);
    pthread_join(thread, NULL);
    printf("child %d\n", (int)getpid());
    exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  parent_markers[99] = 1;
  pthread_join(busy, NULL);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
