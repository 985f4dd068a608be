/* The consumer's static library: a running total shared by threads, guarded by a mutex. */
#include <pthread.h>

long tally_total;
static pthread_mutex_t tally_mutex = PTHREAD_MUTEX_INITIALIZER;

void TallyAdd(long amount) {
  pthread_mutex_lock(&tally_mutex);
  tally_total += amount;
  pthread_mutex_unlock(&tally_mutex);
}

long TallyTotal(void) {
  return tally_total;
}
