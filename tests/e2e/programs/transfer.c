/* Two transfers between the same two accounts, in opposite directions. Each locks the account it
   takes money from, then the one it pays into (lines 29, 36). The refund starts 20 ms after the
   payment, so a normal run never deadlocks; if each transfer holds its first account, both wait
   forever. argv[1] picks a correct variant instead:
     guarded  every transfer holds the bank's lock around both (line 27): no deadlock;
     forked   the payment is made before the refund's thread is created: no deadlock;
     trylock  the second account is only tried; on failure the first is released and the
              transfer retries (line 31): no deadlock.
   Expected: a lock-order deadlock (cycle of 2 locks) predicted and hatched; none in variants. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct account {
  pthread_mutex_t lock;
  long balance;
};
static struct account alice = {PTHREAD_MUTEX_INITIALIZER, 100};
static struct account bob = {PTHREAD_MUTEX_INITIALIZER, 100};
static pthread_mutex_t bank = PTHREAD_MUTEX_INITIALIZER;
static const char* variant = "";

static void transfer(struct account* from, struct account* to, long amount) {
  int guarded = strcmp(variant, "guarded") == 0;
  if (guarded) pthread_mutex_lock(&bank);
  for (;;) {
    pthread_mutex_lock(&from->lock);
    if (strcmp(variant, "trylock") == 0) {
      if (pthread_mutex_trylock(&to->lock) == 0) break;
      pthread_mutex_unlock(&from->lock);
      usleep(1000);
      continue;
    }
    pthread_mutex_lock(&to->lock);
    break;
  }
  from->balance -= amount;
  to->balance += amount;
  pthread_mutex_unlock(&to->lock);
  pthread_mutex_unlock(&from->lock);
  if (guarded) pthread_mutex_unlock(&bank);
}

static void* pay_bob(void* arg) {
  (void)arg;
  transfer(&alice, &bob, 30);
  return NULL;
}

static void* refund_alice(void* arg) {
  (void)arg;
  usleep(20000);
  transfer(&bob, &alice, 10);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) variant = argv[1];
  pthread_t payment, refund;
  if (strcmp(variant, "forked") == 0) {
    pay_bob(NULL);
    pthread_create(&refund, NULL, refund_alice, NULL);
    pthread_join(refund, NULL);
  } else {
    pthread_create(&payment, NULL, pay_bob, NULL);
    pthread_create(&refund, NULL, refund_alice, NULL);
    pthread_join(payment, NULL);
    pthread_join(refund, NULL);
  }
  printf("alice %ld, bob %ld\n", alice.balance, bob.balance);
  return alice.balance + bob.balance == 200 ? 0 : 1;
}
