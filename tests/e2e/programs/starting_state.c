/* Leaves a file behind and exits with status 3 when it did its work, as some test programs do.
   A run that finds state.txt from an earlier run takes another path (it reads the file's count
   in instrumented code), so a replay must start from the recording's state: --before-each
   'rm -f state.txt'. Two workers add to `total` without a lock (a real, harmless race). */
#include <pthread.h>
#include <stdio.h>

static int total;
static int earlier_runs;

static void* worker(void* arg) {
  total += (int)(long)arg;
  return NULL;
}

int main(void) {
  FILE* state = fopen("state.txt", "r");
  if (state != NULL) {
    if (fscanf(state, "%d", &earlier_runs) != 1) earlier_runs = 0;
    fclose(state);
    earlier_runs += 1;
  }
  pthread_t first;
  pthread_t second;
  pthread_create(&first, NULL, worker, (void*)1L);
  pthread_create(&second, NULL, worker, (void*)2L);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  state = fopen("state.txt", "w");
  if (state != NULL) {
    fprintf(state, "%d\n", earlier_runs + total);
    fclose(state);
  }
  return 3;
}
