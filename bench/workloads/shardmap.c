// shardmap: a striped-lock hash map under load, the shape of a cache or a symbol table in a
// server. 4 threads insert, look up and update keys in a table of 16,384 buckets guarded by 64
// stripe locks, each counting its own hits. Correct: every access to a bucket holds its stripe.
// Many shared locations (32,768 fields), short critical sections: a stress for the analysis.
//
//     shardmap [OPS]      OPS operations per thread (default 200000, about 8 events each)
//
// Prints the number of hits; exit status 0.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define BUCKETS 16384
#define STRIPES 64
#define THREADS 4

struct entry { unsigned key; unsigned value; };
static struct entry table[BUCKETS];
static pthread_mutex_t stripes[STRIPES];
static unsigned long hits[THREADS];
static int ops = 200000;

static void *worker(void *arg) {
  unsigned id = (unsigned)(unsigned long)arg;
  unsigned seed = id * 7919 + 1;
  for (int i = 0; i < ops; i++) {
    seed = seed * 1103515245u + 12345u;
    unsigned key = (seed >> 8) % (BUCKETS * 2);
    unsigned b = key % BUCKETS;
    pthread_mutex_t *lock = &stripes[b % STRIPES];
    pthread_mutex_lock(lock);
    if (table[b].key == key) { table[b].value++; hits[id]++; }
    else { table[b].key = key; table[b].value = 1; }
    pthread_mutex_unlock(lock);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) ops = atoi(argv[1]);
  for (int i = 0; i < STRIPES; i++) pthread_mutex_init(&stripes[i], NULL);
  pthread_t t[THREADS];
  for (unsigned long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  unsigned long total = 0;
  for (int i = 0; i < THREADS; i++) { pthread_join(t[i], NULL); total += hits[i]; }
  printf("%lu hits\n", total);
  return 0;
}
