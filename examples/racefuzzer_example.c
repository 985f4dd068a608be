// RaceFuzzer's motivating example (Sen, PLDI 2008, Figure 1): one real race, on z, that reaches
// ERROR1, and one race on x that a lockset or PECAN-style detector predicts but that no run can
// produce, because the lock-protected flag y orders the two accesses.
//
// Bug: thread2's write of z (line 37) is unordered with thread1's read (line 29); when it
// runs first, thread1 fails the assertion at line 30 (the paper's ERROR1). thread1's write of
// x (line 25) and thread2's read (line 40) hold no common lock either, but thread2 only reads x
// after seeing y == 1, which thread1 sets after writing x: that race is not real.
// Normal run: thread2 waits 50 ms, so thread1 runs to the end first. Exits 0.
// Expected with pecan hunt: one confirmed race, lines (29,37), whose replay with line 37 first
// fails the assertion at line 30; the race (25,40) is refuted (thread2 reads y == 0, diverges),
// but its replay, serialized on, fails at line 30 too: listed as exposed, never confirmed.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { kHeadStartMicros = 50000 };

int x, y, z;
pthread_mutex_t L = PTHREAD_MUTEX_INITIALIZER;

static void* thread1(void* arg) {
  (void)arg;
  x = 1; /* paper's 1: BUG, false race with line 40 */
  pthread_mutex_lock(&L);
  y = 1;
  pthread_mutex_unlock(&L);
  int seen = z;      /* paper's 5: BUG, races with line 37 */
  assert(seen != 1); /* paper's 6: ERROR1 */
  return NULL;
}

static void* thread2(void* arg) {
  (void)arg;
  usleep(kHeadStartMicros);
  z = 1; /* paper's 7: BUG */
  pthread_mutex_lock(&L);
  if (y == 1) {
    int seen = x;      /* paper's 10: BUG, false race with line 25 */
    assert(seen == 1); /* paper's 11: ERROR2, unreachable */
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
  printf("x=%d y=%d z=%d\n", x, y, z);
  return 0;
}
