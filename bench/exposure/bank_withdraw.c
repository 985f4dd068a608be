// bank_withdraw: each ATM checks the balance and withdraws in two separately locked steps, so
// two withdrawals can both pass the check and overdraw the account.
// Lines: 27, 28 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static int balance = 100;

static int get_balance(void) {
  pthread_mutex_lock(&account_lock);
  int b = balance;
  pthread_mutex_unlock(&account_lock);
  return b;
}

static void debit(int amount) {
  pthread_mutex_lock(&account_lock);
  balance -= amount;
  pthread_mutex_unlock(&account_lock);
}

static void *atm(void *arg) {
  int amount = *(int *)arg;
  if (get_balance() >= amount) // BUG: check and act are separate critical sections
    debit(amount);             // BUG
  return NULL;
}

int main(void) {
  int amounts[2] = {80, 70};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, atm, &amounts[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  assert(balance >= 0);
  return 0;
}
