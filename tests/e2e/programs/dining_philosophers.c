/* N philosophers (argv[1], 2..16, default 5) around a table with a fork between each pair. Each
   takes the fork on the left, then the one on the right (lines 26, 27), eats and puts both down.
   They sit down 10 ms apart, so a normal run never deadlocks; if all hold their left fork at
   once, nobody gets a right one. With argv[2] = "ordered" the last philosopher takes the
   lower-numbered fork first, the classic fix.
   Expected: a lock-order deadlock (cycle of N locks) predicted and hatched; none when ordered. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PHILOSOPHERS 16

static pthread_mutex_t forks[MAX_PHILOSOPHERS];
static int meals[MAX_PHILOSOPHERS];
static int philosophers = 5;
static int ordered;

static void* philosopher(void* arg) {
  int i = (int)(long)arg;
  int first = i, second = (i + 1) % philosophers;
  usleep(10000 * (unsigned)i);
  if (ordered && second < first) first = second, second = i;
  pthread_mutex_lock(&forks[first]);
  pthread_mutex_lock(&forks[second]);
  meals[i]++;
  pthread_mutex_unlock(&forks[second]);
  pthread_mutex_unlock(&forks[first]);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) philosophers = atoi(argv[1]);
  if (philosophers < 2 || philosophers > MAX_PHILOSOPHERS) {
    fprintf(stderr, "usage: %s [2..%d] [ordered]\n", argv[0], MAX_PHILOSOPHERS);
    return 2;
  }
  ordered = argc > 2 && strcmp(argv[2], "ordered") == 0;
  pthread_t table[MAX_PHILOSOPHERS];
  for (int i = 0; i < philosophers; i++) pthread_mutex_init(&forks[i], NULL);
  for (long i = 0; i < philosophers; i++) pthread_create(&table[i], NULL, philosopher, (void*)i);
  for (int i = 0; i < philosophers; i++) pthread_join(table[i], NULL);
  for (int i = 0; i < philosophers; i++)
    if (meals[i] != 1) return 1;
  printf("%d philosophers ate\n", philosophers);
  return 0;
}
