// missing_join_free: the join loop starts at 1, so worker 0 is never joined; main then destroys
// the shared context while worker 0 may still be using it (use after free).
// Lines: 23, 42 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define WORKERS 4
#define CONTEXT_MAGIC 0x5eed

struct context {
  int magic;
  pthread_mutex_t lock;
  int processed;
};

static struct context *ctx;

static void *worker(void *arg) {
  (void)arg;
  assert(ctx->magic == CONTEXT_MAGIC); // BUG: worker 0 may run after the context is freed
  pthread_mutex_lock(&ctx->lock);
  ctx->processed++;
  pthread_mutex_unlock(&ctx->lock);
  return NULL;
}

static void destroy_context(void) {
  ctx->magic = 0;
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

int main(void) {
  pthread_t t[WORKERS];
  ctx = calloc(1, sizeof *ctx);
  ctx->magic = CONTEXT_MAGIC;
  pthread_mutex_init(&ctx->lock, NULL);
  for (int i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 1; i < WORKERS; i++) pthread_join(t[i], NULL); // BUG: off by one, t[0] not joined
  destroy_context();
  return 0;
}
