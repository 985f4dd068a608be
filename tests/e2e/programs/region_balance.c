// A deposit in two critical sections: each of two tellers reads the balance under the lock,
// lets go of it, and writes the balance plus one under the lock again, 300 times. No access
// races (every one holds `lock`), but a deposit is meant to be atomic, as the region annotation
// says, and another teller's deposit between the read (line 21) and the write (line 24) is lost.
// Normal run: usually 600; exits 1 when short.
// Expected with pecan fuzz --strategy noise: atomicity violations R-W-W on `balance` (the other
// teller's write at line 24 between this teller's read at line 21 and its write at line 24),
// and no race.
#include <pecan/annotations.h>
#include <pthread.h>
#include <stdio.h>

enum { kTellers = 2, kDeposits = 300 };

long balance = 0;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void deposit(void) {
  pecan_region_begin(&balance);
  pthread_mutex_lock(&lock);
  long seen = balance; /* BUG: read, then the lock is let go */
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  balance = seen + 1; /* BUG: write of a stale sum */
  pthread_mutex_unlock(&lock);
  pecan_region_end(&balance);
}

static void* teller(void* arg) {
  for (int i = 0; i < kDeposits; i++) deposit();
  return arg;
}

int main(void) {
  pthread_t tellers[kTellers];
  for (int i = 0; i < kTellers; i++) pthread_create(&tellers[i], NULL, teller, NULL);
  for (int i = 0; i < kTellers; i++) pthread_join(tellers[i], NULL);
  printf("balance %ld\n", balance);
  return balance == (long)kTellers * kDeposits ? 0 : 1;
}
