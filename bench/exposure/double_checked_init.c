// double_checked_init: the config is published through the plain pointer `config` before its
// fields are filled, and the first check reads it without the lock or atomics.
// Lines: 19, 22 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct config {
  int buffer_size;
  char *buffer;
};

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct config *config;

static struct config *get_config(void) {
  if (config == NULL) { // BUG: unsynchronized first check
    pthread_mutex_lock(&init_lock);
    if (config == NULL) {
      config = calloc(1, sizeof *config); // BUG: published before it is filled in
      config->buffer_size = 4096;
      config->buffer = malloc(4096);
    }
    pthread_mutex_unlock(&init_lock);
  }
  return config;
}

static void *client(void *arg) {
  (void)arg;
  struct config *c = get_config();
  assert(c->buffer_size == 4096 && c->buffer != NULL);
  c->buffer[0] = 'x';
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, client, NULL);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  free(config->buffer);
  free(config);
  return 0;
}
