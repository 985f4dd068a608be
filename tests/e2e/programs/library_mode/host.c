// A plain program (no -fsanitize, not linked with libpecan_rt.so) that links a library: the
// instrumented libcounting.so, or its uninstrumented twin. With the argument "threaded" it calls
// the library from a thread of its own. Exits 0 whatever the count.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "counting.h"

static void* call_library(void* total) {
  *(long*)total = counting_run();
  return NULL;
}

int main(int argc, char** argv) {
  long total = 0;
  if (argc > 1 && strcmp(argv[1], "threaded") == 0) {
    pthread_t caller;
    pthread_create(&caller, NULL, call_library, &total);
    pthread_join(caller, NULL);
  } else {
    total = counting_run();
  }
  printf("counted %ld\n", total);
  return 0;
}
