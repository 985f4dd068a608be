// deadlock_abba: transfer() locks the source account, then the destination; two opposite
// transfers taking their first lock at the same time deadlock (ABBA).
// Lines: 18, 19 (marked BUG)
// Expected failure: deadlock
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
  pthread_mutex_lock(&from->lock); // BUG: lock order depends on the direction
  pthread_mutex_lock(&to->lock);   // BUG
  from->balance -= amount;
  to->balance += amount;
  pthread_mutex_unlock(&to->lock);
  pthread_mutex_unlock(&from->lock);
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
