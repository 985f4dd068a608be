/* A worker counts without synchronization while main counts too, then main prints the total
   without a final newline (as a progress line or a prompt would). The race on `count` (line 12
   and line 19) is real and harmless: its replay hatches and the program exits 0. pecan replay
   --json must still print its verdict on a line of its own, after the program's "count ...". */
#include <pthread.h>
#include <stdio.h>

static int count;

static void* worker(void* arg) {
  (void)arg;
  count += 1;
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  count += 2;
  pthread_join(thread, NULL);
  printf("count %d", count);
  return 0;
}
