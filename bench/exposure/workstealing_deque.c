// workstealing_deque: a Chase-Lev work-stealing deque whose owner pop takes the last task with a
// plain store to `top` instead of a compare-exchange, so owner and thief can both take it.
// Lines: 34, 65 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define CAPACITY 64
#define TASKS 4
#define EMPTY (-1)

static int tasks[CAPACITY];
static atomic_long top, bottom;
static atomic_int runs[TASKS];

static void push(int task) {
  long b = atomic_load(&bottom);
  tasks[b % CAPACITY] = task;
  atomic_store(&bottom, b + 1);
}

static int pop(void) {
  long b = atomic_load(&bottom) - 1;
  atomic_store(&bottom, b);
  long t = atomic_load(&top);
  if (t > b) {
    atomic_store(&bottom, b + 1);
    return EMPTY;
  }
  int task = tasks[b % CAPACITY];
  if (t == b) {                  // last task: a thief may be taking it right now
    atomic_store(&top, t + 1);   // BUG: must be compare_exchange(&top, &t, t + 1)
    atomic_store(&bottom, b + 1);
  }
  return task;
}

static int steal(void) {
  long t = atomic_load(&top);
  long b = atomic_load(&bottom);
  if (t >= b) return EMPTY;
  int task = tasks[t % CAPACITY];
  return atomic_compare_exchange_strong(&top, &t, t + 1) ? task : EMPTY;
}

static void run(int task) { atomic_fetch_add(&runs[task], 1); }

static void *thief(void *arg) {
  (void)arg;
  for (int attempt = 0; attempt < 2; attempt++) {
    int task = steal();
    if (task != EMPTY) run(task);
  }
  return NULL;
}

int main(void) {
  for (int i = 0; i < TASKS; i++) push(i);
  pthread_t t;
  pthread_create(&t, NULL, thief, NULL);
  for (int task; (task = pop()) != EMPTY;) run(task);
  pthread_join(t, NULL);
  for (int i = 0; i < TASKS; i++) assert(atomic_load(&runs[i]) == 1); // BUG shows: a task ran twice
  return 0;
}
