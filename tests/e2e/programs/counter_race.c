// AtomRace's bank example in C: two workers each add 1 to a shared counter 20,000 times without
// a lock. The read and the write of `counter += 1` (line 15) race, and when one worker's update
// falls between the other's read and write the update is lost.
// Normal run: often short of 40000 on a multi-core machine, not always; exits 1 when short.
// Expected with pecan fuzz --strategy noise: the race on `counter` at line 15 in every run;
// with pecan heal and that report: 40000 in every run.
#include <pthread.h>
#include <stdio.h>

enum { kWorkers = 2, kIncrements = 20000 };

long counter = 0;

static void* work(void* arg) {
  for (int i = 0; i < kIncrements; i++) counter += 1; /* BUG: unprotected read-modify-write */
  return arg;
}

int main(void) {
  pthread_t workers[kWorkers];
  for (int i = 0; i < kWorkers; i++) pthread_create(&workers[i], NULL, work, NULL);
  for (int i = 0; i < kWorkers; i++) pthread_join(workers[i], NULL);
  printf("counter %ld\n", counter);
  return counter == (long)kWorkers * kIncrements ? 0 : 1;
}
