// bank_withdraw_correct: the fixed twin; the check and the debit happen in one critical section.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static int balance = 100;

static int try_debit(int amount) {
  pthread_mutex_lock(&account_lock);
  int ok = balance >= amount;
  if (ok) balance -= amount;
  pthread_mutex_unlock(&account_lock);
  return ok;
}

static void *atm(void *arg) {
  int amount = *(int *)arg;
  (void)try_debit(amount);
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
