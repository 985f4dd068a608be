// dining_philosophers: five philosophers each take the left fork, then the right; if all five
// hold their left fork at once, nobody gets a right fork (5-lock cycle).
// Lines: 16, 17 (marked BUG)
// Expected failure: deadlock
#define _DEFAULT_SOURCE
#include <pthread.h>

#define PHILOSOPHERS 5

static pthread_mutex_t forks[PHILOSOPHERS];
static int meals[PHILOSOPHERS];

static void *philosopher(void *arg) {
  int i = (int)(long)arg;
  int left = i, right = (i + 1) % PHILOSOPHERS;
  pthread_mutex_lock(&forks[left]);  // BUG: everyone picks left first
  pthread_mutex_lock(&forks[right]); // BUG
  meals[i]++;
  pthread_mutex_unlock(&forks[right]);
  pthread_mutex_unlock(&forks[left]);
  return NULL;
}

int main(void) {
  pthread_t t[PHILOSOPHERS];
  for (int i = 0; i < PHILOSOPHERS; i++) pthread_mutex_init(&forks[i], NULL);
  for (long i = 0; i < PHILOSOPHERS; i++) pthread_create(&t[i], NULL, philosopher, (void *)i);
  for (int i = 0; i < PHILOSOPHERS; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < PHILOSOPHERS; i++)
    if (meals[i] != 1) return 1;
  return 0;
}
