/* RaceFuzzer's Figure 1 (Sen, PLDI 2008) in C. thread1: x = 1 (statement 1, line 22); lock L;
   y = 1; unlock L; if (z == 1) ERROR1 (statement 5, line 26). thread2: z = 1 (statement 7,
   line 34); lock L; if (y == 1) { if (x != 1) ERROR2 } (statement 10, line 37); unlock L.
   The accesses to z race: when thread2's write comes first, ERROR1. The accesses to x look like
   a race to a lockset or hybrid detector, but y orders them: thread2 reads x only after thread1
   set y, after x. thread1 starts first and is short, thread2 does 10 ms of other work first,
   so a normal run reaches neither error and reads x at statement 10.
   Expected: RaceFuzzer creates the real race on z (5, 7) in every run targeting it and reaches
   ERROR1 in about half; targeting (1, 10), it never creates a race (ERROR1 is reached all the
   same: thread1 waits at statement 1 until thread2 has run through, z = 1 included). */
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t L = PTHREAD_MUTEX_INITIALIZER;
static int x, y, z;

static void* thread1(void* arg) {
  (void)arg;
  x = 1;
  pthread_mutex_lock(&L);
  y = 1;
  pthread_mutex_unlock(&L);
  int seen_z = z;
  assert(seen_z != 1 && "ERROR1");
  return NULL;
}

static void* thread2(void* arg) {
  (void)arg;
  usleep(10000); /* other work first */
  z = 1;
  pthread_mutex_lock(&L);
  if (y == 1) {
    int seen_x = x;
    assert(seen_x == 1 && "ERROR2");
  }
  pthread_mutex_unlock(&L);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, thread1, NULL);
  pthread_create(&t2, NULL, thread2, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("x %d, y %d, z %d\n", x, y, z);
  return 0;
}
