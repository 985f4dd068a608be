// region_balance.c without the annotation: a deposit reads the balance under the lock, lets go
// of it, and writes the balance plus one under the lock again; two tellers, 300 deposits each.
// No access races; only the user can say that deposit() is meant to be atomic, with
// `pecan fuzz --strategy noise --atomic FILE` listing `function deposit` or
// `lines deposit_steps.c:18-23`.
// Normal run: usually 600; exits 1 when short.
// Expected with noise and either section: atomicity violations R-W-W on `balance` (lines 19,
// 22); without: nothing.
#include <pthread.h>
#include <stdio.h>

enum { kTellers = 2, kDeposits = 300 };

long balance = 0;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void deposit(void) {
  pthread_mutex_lock(&lock);
  long seen = balance; /* BUG: read, then the lock is let go */
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  balance = seen + 1; /* BUG: write of a stale sum */
  pthread_mutex_unlock(&lock);
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
