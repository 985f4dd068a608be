// deadlock_abba_correct: the fixed twin; transfer() always locks the account at the lower
// address first, so there is one global lock order.
// Lines: none
// Expected failure: none
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>

struct account {
  pthread_mutex_t lock;
  int balance;
};

static struct account alice = {PTHREAD_MUTEX_INITIALIZER, 100};
static struct account bob = {PTHREAD_MUTEX_INITIALIZER, 100};

static void transfer(struct account *from, struct account *to, int amount) {
  struct account *first = from < to ? from : to;
  struct account *second = from < to ? to : from;
  pthread_mutex_lock(&first->lock);
  pthread_mutex_lock(&second->lock);
  from->balance -= amount;
  to->balance += amount;
  pthread_mutex_unlock(&second->lock);
  pthread_mutex_unlock(&first->lock);
}

static void *pay_bob(void *arg) { (void)arg; transfer(&alice, &bob, 10); return NULL; }
static void *refund_alice(void *arg) { (void)arg; transfer(&bob, &alice, 5); return NULL; }

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, pay_bob, NULL);
  pthread_create(&b, NULL, refund_alice, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(alice.balance + bob.balance == 200);
  return 0;
}
