// missing_barrier: each thread fills its row, then smooths it with the row above; there is no
// barrier between the two phases, so a thread can read a row its neighbour has not filled.
// Lines: 21, 23 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

#define THREADS 4
#define WIDTH 8

static int grid[THREADS][WIDTH];
static int smoothed[THREADS][WIDTH];

static void *row_worker(void *arg) {
  int r = (int)(long)arg;
  for (int x = 0; x < WIDTH; x++) grid[r][x] = r + 1; // phase 1: fill my row
  usleep(5000);                                        // read this row's settings file
  if (r == 0) return NULL;                             // the top row has nothing above it
  int above = r - 1;                                   // BUG: no barrier before phase 2
  for (int x = 0; x < WIDTH; x++) {
    assert(grid[above][x] != 0); // BUG: the neighbour's row may still be empty
    smoothed[r][x] = (grid[r][x] + grid[above][x]) / 2;
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (long r = 0; r < THREADS; r++) pthread_create(&t[r], NULL, row_worker, (void *)r);
  for (int r = 0; r < THREADS; r++) pthread_join(t[r], NULL);
  return 0;
}
