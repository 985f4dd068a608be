/* RaceFuzzer's Figure 2 (Sen, PLDI 2008) in C. thread2 writes x = 1 at its start (statement 10,
   line 31), then takes lock L; thread1 takes L, runs argv[1] statements (default 1000), releases
   L, then reads x (statement 8, line 24) and fails if it is still 0 (ERROR). thread2 starts
   first, and main waits 20 ms before starting thread1 (on a loaded machine thread2 may not run
   at once), so in a normal run its write comes long before thread1's read and ERROR is never
   reached. Expected: RaceFuzzer on the pair (8, 10) creates the real race in every run and
   reaches ERROR in about half of them, whatever the number of statements before statement 8. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t L = PTHREAD_MUTEX_INITIALIZER;
static int x;
static long work1, work2;
static long statements = 1000;

static void* thread1(void* arg) {
  (void)arg;
  pthread_mutex_lock(&L);
  for (long i = 0; i < statements; i++) work1 += i; /* f1() ... f5() */
  pthread_mutex_unlock(&L);
  int seen = x;
  assert(seen != 0 && "ERROR: x is still 0");
  return NULL;
}

static void* thread2(void* arg) {
  (void)arg;
  x = 1;
  pthread_mutex_lock(&L);
  work2++; /* f6() */
  pthread_mutex_unlock(&L);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) statements = atol(argv[1]);
  pthread_t t1, t2;
  pthread_create(&t2, NULL, thread2, NULL);
  usleep(20 * 1000);
  pthread_create(&t1, NULL, thread1, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("x %d after %ld statements\n", x, statements);
  return 0;
}
