// Parses its options and operands in instrumented code (no getopt, no strtol), then two
// workers add the operands to a total under a mutex. Run as
//   parse_operands [-v] [-r ROUNDS] NUMBER...
// Its reads of argv's strings are reads of the process's arguments above the main thread's
// stack: every recording of the same command must see them, whatever address randomization
// and the size of the environment do (a replay of the recorded run depends on it).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long operands[16];
static int operand_count = 0;
static long rounds = 1;
static int verbose = 0;
static long total = 0;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

static int ParseNumber(const char* text, long* value) {
  long result = 0;
  if (*text == '\0') return 0;
  for (; *text != '\0'; ++text) {
    if (*text < '0' || *text > '9') return 0;
    result = result * 10 + (*text - '0');
  }
  *value = result;
  return 1;
}

static int StartsWithDash(const char* text) {
  return text[0] == '-' && text[1] != '\0';
}

static void* AddOperands(void* arg) {
  long sign = (long)arg;
  for (long r = 0; r < rounds; ++r) {
    for (int i = 0; i < operand_count; ++i) {
      pthread_mutex_lock(&total_lock);
      total += sign * operands[i];
      pthread_mutex_unlock(&total_lock);
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  int i = 1;
  for (; i < argc && StartsWithDash(argv[i]); ++i) {
    if (argv[i][1] == 'v' && argv[i][2] == '\0') {
      verbose = 1;
    } else if (argv[i][1] == 'r' && argv[i][2] == '\0' && i + 1 < argc &&
               ParseNumber(argv[i + 1], &rounds)) {
      ++i;
    } else {
      fprintf(stderr, "parse_operands: bad option %s\n", argv[i]);
      return 2;
    }
  }
  for (; i < argc && operand_count < 16; ++i) {
    if (!ParseNumber(argv[i], &operands[operand_count++])) {
      fprintf(stderr, "parse_operands: not a number: %s\n", argv[i]);
      return 2;
    }
  }
  pthread_t adder;
  pthread_t subtractor;
  pthread_create(&adder, NULL, AddOperands, (void*)1L);
  pthread_create(&subtractor, NULL, AddOperands, (void*)2L);
  pthread_join(adder, NULL);
  pthread_join(subtractor, NULL);
  if (verbose) printf("parse_operands: total %ld\n", total);
  return 0;
}
