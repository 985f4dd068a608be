// account_audit: deposit() records the amount in the ledger and then credits the balance, each
// under its own lock; an audit between the two sees a ledger that does not match the balance.
// Lines: 19, 36 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

#define OPENING_BALANCE 500

static pthread_mutex_t ledger_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t balance_lock = PTHREAD_MUTEX_INITIALIZER;
static int ledger_total;
static int balance = OPENING_BALANCE;

static void deposit(int amount) {
  pthread_mutex_lock(&ledger_lock);
  ledger_total += amount;
  pthread_mutex_unlock(&ledger_lock); // BUG: the balance is updated in a second critical section
  pthread_mutex_lock(&balance_lock);
  balance += amount;
  pthread_mutex_unlock(&balance_lock);
}

static void *teller(void *arg) {
  (void)arg;
  deposit(50);
  deposit(25);
  return NULL;
}

static void *auditor(void *arg) {
  (void)arg;
  pthread_mutex_lock(&ledger_lock);
  pthread_mutex_lock(&balance_lock);
  assert(balance == OPENING_BALANCE + ledger_total); // BUG: fails mid-deposit
  pthread_mutex_unlock(&balance_lock);
  pthread_mutex_unlock(&ledger_lock);
  return NULL;
}

int main(void) {
  pthread_t t, a;
  pthread_create(&t, NULL, teller, NULL);
  pthread_create(&a, NULL, auditor, NULL);
  pthread_join(t, NULL);
  pthread_join(a, NULL);
  return 0;
}
