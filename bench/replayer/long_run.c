// Replay benchmark program: one thread does N rounds of plain loads and stores over an array
// (a second thread exists but does nothing after starting), so a replay of its recorded run
// stays on one thread for millions of events. Usage: long_run [ROUNDS=2000]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kSize = 1024 };
static long values[kSize];

static void* Idle(void* arg) { return arg; }

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 2000;
  pthread_t idle;
  pthread_create(&idle, NULL, Idle, NULL);
  pthread_join(idle, NULL);
  long sum = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < kSize; ++i) {
      values[i] += i ^ round;
      sum += values[i];
    }
  }
  printf("sum %ld\n", sum);
  return 0;
}
