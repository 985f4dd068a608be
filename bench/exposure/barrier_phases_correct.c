// barrier_phases_correct: the missing_barrier program done right; a pthread barrier separates
// filling the rows from reading the neighbour's row, for three rounds.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

#define THREADS 4
#define WIDTH 8
#define ROUNDS 3

static pthread_barrier_t phase_barrier;
static int grid[THREADS][WIDTH];

static void *row_worker(void *arg) {
  int r = (int)(long)arg;
  for (int round = 1; round <= ROUNDS; round++) {
    for (int x = 0; x < WIDTH; x++) grid[r][x] = round * 10 + r;
    pthread_barrier_wait(&phase_barrier);
    int below = (r + 1) % THREADS;
    for (int x = 0; x < WIDTH; x++) assert(grid[below][x] == round * 10 + below);
    pthread_barrier_wait(&phase_barrier);
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  pthread_barrier_init(&phase_barrier, NULL, THREADS);
  for (long r = 0; r < THREADS; r++) pthread_create(&t[r], NULL, row_worker, (void *)r);
  for (int r = 0; r < THREADS; r++) pthread_join(t[r], NULL);
  pthread_barrier_destroy(&phase_barrier);
  return 0;
}
