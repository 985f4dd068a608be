// Benchmark program: blocked parallel matrix multiplication C = A * B (doubles), one band of
// rows per thread. Memory-heavy and CPU-bound: almost every event is a plain load or store.
// Usage: matmul [N=320] [THREADS=4]; prints a checksum so the work cannot be optimized away.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBlock = 32 };

static int n;
static int thread_count;
static double* a;
static double* b;
static double* c;

static void* MultiplyBand(void* arg) {
  int index = (int)(long)arg;
  int first = n * index / thread_count;
  int last = n * (index + 1) / thread_count;
  for (int ii = first; ii < last; ii += kBlock) {
    int i_end = ii + kBlock < last ? ii + kBlock : last;
    for (int kk = 0; kk < n; kk += kBlock) {
      int k_end = kk + kBlock < n ? kk + kBlock : n;
      for (int jj = 0; jj < n; jj += kBlock) {
        int j_end = jj + kBlock < n ? jj + kBlock : n;
        for (int i = ii; i < i_end; ++i) {
          for (int k = kk; k < k_end; ++k) {
            double scale = a[i * n + k];
            for (int j = jj; j < j_end; ++j) c[i * n + j] += scale * b[k * n + j];
          }
        }
      }
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  n = argc > 1 ? atoi(argv[1]) : 320;
  thread_count = argc > 2 ? atoi(argv[2]) : 4;
  if (n <= 0 || thread_count <= 0 || thread_count > 256) {
    fprintf(stderr, "usage: matmul [N] [THREADS]\n");
    return 2;
  }
  a = malloc(sizeof(double) * n * n);
  b = malloc(sizeof(double) * n * n);
  c = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n * n; ++i) {
    a[i] = (double)(i % 7) - 3.0;
    b[i] = (double)(i % 5) * 0.5;
  }
  pthread_t threads[256];
  for (long t = 0; t < thread_count; ++t) pthread_create(&threads[t], NULL, MultiplyBand, (void*)t);
  for (int t = 0; t < thread_count; ++t) pthread_join(threads[t], NULL);
  double checksum = 0;
  for (int i = 0; i < n * n; ++i) checksum += c[i] * (double)(i % 3 + 1);
  printf("matmul n=%d threads=%d checksum=%.1f\n", n, thread_count, checksum);
  free(a);
  free(b);
  free(c);
  return 0;
}
