// PECAN (Huang & Zhang, ISSTA 2011) Figure 1: three races on x and y, one of which, (3,7),
// reaches the ERROR at line 4 when the other thread's write of y overtakes the read.
//
// Bug: thread t1 reads y inside its critical section (the paper's line 3, here line 28) and
// fails the assertion (the paper's ERROR, line 29) if t2 has already set y (line 39). t2 takes
// no lock, so the lock does not order anything. The other two races are on x: t1's write
// (line 27) against t2's read (line 37) and write (line 38).
// Normal run: t2 sleeps first, so t1's critical section always runs before t2 touches x or y;
// the program exits 0.
// Expected with pecan hunt: three confirmed races, at lines (27,37), (27,38) and (28,39); the
// replay of (28,39) that lets line 39 run first fails the assertion at line 29.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { kHeadStartMicros = 50000 };

// The shared variables of the figure.
int x;
int y;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void* thread_t1(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m); /* paper's 1 */
  x = 1;                  /* paper's 2: BUG, races with lines 37 and 38 */
  int seen = y;           /* paper's 3: BUG, races with line 39 */
  assert(seen == 0);      /* paper's 4: ERROR when line 39 ran first */
  pthread_mutex_unlock(&m);
  return NULL;
}

static void* thread_t2(void* arg) {
  (void)arg;
  usleep(kHeadStartMicros);
  int old = x; /* paper's 5: BUG */
  x = old + 1; /* paper's 6: BUG */
  y = 1;       /* paper's 7: BUG */
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, thread_t1, NULL);
  pthread_create(&t2, NULL, thread_t2, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("x=%d y=%d\n", x, y);
  return 0;
}
