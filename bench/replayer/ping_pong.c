// Replay benchmark program: two threads hand a token back and forth N times through two
// semaphores, so a replay of its recorded run switches threads at almost every step.
// Usage: ping_pong [ROUNDS=20000]
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static sem_t to_pong, to_ping;
static int rounds;
static long token;

static void* Pong(void* arg) {
  (void)arg;
  for (int i = 0; i < rounds; ++i) {
    sem_wait(&to_pong);
    token++;
    sem_post(&to_ping);
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atoi(argv[1]) : 20000;
  sem_init(&to_pong, 0, 0);
  sem_init(&to_ping, 0, 0);
  pthread_t pong;
  pthread_create(&pong, NULL, Pong, NULL);
  for (int i = 0; i < rounds; ++i) {
    token++;
    sem_post(&to_pong);
    sem_wait(&to_ping);
  }
  pthread_join(pong, NULL);
  printf("token %ld\n", token);
  return token == 2L * rounds ? 0 : 1;
}
