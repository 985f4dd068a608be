// aba_lockfree_stack: a Treiber stack whose nodes are reused. A pop that read top=A, next=B can
// be overtaken by pop A, pop B, push A; its compare-exchange still succeeds and installs B, which
// is in use (ABA). The stack ends up corrupted (a cycle or a lost node).
// Lines: 30, 31 (marked BUG)
// Expected failure: assertion
#define _DEFAULT_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct node {
  struct node *next;
  int id;
};

static struct node pool[3];
static _Atomic(struct node *) top;

static void push(struct node *n) {
  struct node *old = atomic_load(&top);
  do {
    n->next = old;
  } while (!atomic_compare_exchange_weak(&top, &old, n));
}

static struct node *pop(void) {
  struct node *old = atomic_load(&top);
  while (old != NULL) {
    struct node *next = old->next; // BUG: `next` may be stale by the time the CAS runs
    if (atomic_compare_exchange_weak(&top, &old, next)) // BUG: no tag, so A-B-A goes unnoticed
      break;
  }
  return old;
}

static void *borrow_one(void *arg) {
  (void)arg;
  struct node *n = pop();
  if (n) push(n);
  return NULL;
}

static void *borrow_two(void *arg) {
  (void)arg;
  struct node *a = pop();
  struct node *b = pop();
  if (a) push(a);
  if (b) push(b);
  return NULL;
}

int main(void) {
  for (int i = 2; i >= 0; i--) {
    pool[i].id = i;
    push(&pool[i]);
  }
  pthread_t t1, t2;
  pthread_create(&t1, NULL, borrow_one, NULL);
  pthread_create(&t2, NULL, borrow_two, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  int seen[3] = {0, 0, 0}, count = 0;
  for (struct node *n = atomic_load(&top); n != NULL && count < 10; n = n->next, count++)
    seen[n->id]++;
  assert(count == 3 && seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
  return 0;
}
