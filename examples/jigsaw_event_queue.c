// The Jigsaw event-manager bug (PECAN Figure 7): getNextEvent() checks that the queue is not
// empty, then takes element 0, then removes it, each step synchronized on its own.
//
// Bug: get_next_event() checks the size (line 35), reads element 0 (lines 42-43) and removes it
// (lines 50-52); each step holds the queue's lock, but nothing holds it across the steps. When
// the other consumer's removal (line 52) lands between the check and the read, the index check
// at line 42 fails (Jigsaw's ArrayIndexOutOfBoundsException); between the read and the removal,
// the check at line 50 fails.
// Normal run: consumer A takes event 0 at once and tells the dispatcher (main), which only then
// posts event 1; consumer B starts 50 ms later and takes event 1. Exits 0.
// Expected with pecan hunt --regions functions: confirmed atomicity violations in which B's
// removal (line 52) interleaves A's steps, e.g. size check (35) / B's removal (52) / read (42),
// whose replay fails the assertion at line 42. The lock makes every access race-free.
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

enum { kCapacity = 4, kEvents = 2, kLateStartMicros = 50000 };

// A vector whose every method is synchronized, as java.util.Vector's are.
struct EventQueue {
  pthread_mutex_t lock;
  int items[kCapacity];
  int count;
};

struct EventQueue queue = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
int handled[kEvents];
sem_t consumed;  // consumer A -> dispatcher: the first event was taken

static int queue_size(void) {
  pthread_mutex_lock(&queue.lock);
  int n = queue.count; /* BUG: check */
  pthread_mutex_unlock(&queue.lock);
  return n;
}

static int queue_element_at(int index) {
  pthread_mutex_lock(&queue.lock);
  assert(index < queue.count);    /* BUG: act (ArrayIndexOutOfBoundsException) */
  int event = queue.items[index]; /* BUG: act */
  pthread_mutex_unlock(&queue.lock);
  return event;
}

static void queue_remove_first(void) {
  pthread_mutex_lock(&queue.lock);
  assert(queue.count > 0); /* BUG: act (ArrayIndexOutOfBoundsException) */
  for (int i = 1; i < queue.count; i++) queue.items[i - 1] = queue.items[i]; /* BUG: act */
  queue.count--; /* BUG: the other consumer's removal */
  pthread_mutex_unlock(&queue.lock);
}

static void queue_add(int event) {
  pthread_mutex_lock(&queue.lock);
  assert(queue.count < kCapacity);
  queue.items[queue.count] = event;
  queue.count++;
  pthread_mutex_unlock(&queue.lock);
}

// EventManager.getNextEvent(): correct with one consumer, wrong with two.
static int get_next_event(void) {
  while (queue_size() == 0) usleep(1000);
  int event = queue_element_at(0);
  queue_remove_first();
  return event;
}

static void* consumer_a(void* arg) {
  (void)arg;
  handled[get_next_event()]++;
  sem_post(&consumed);
  return NULL;
}

static void* consumer_b(void* arg) {
  (void)arg;
  usleep(kLateStartMicros);
  handled[get_next_event()]++;
  return NULL;
}

int main(void) {
  sem_init(&consumed, 0, 0);
  queue_add(0);
  pthread_t a, b;
  pthread_create(&a, NULL, consumer_a, NULL);
  pthread_create(&b, NULL, consumer_b, NULL);
  sem_wait(&consumed);
  queue_add(1);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  for (int e = 0; e < kEvents; e++) assert(handled[e] == 1); /* ERROR: each event exactly once */
  printf("handled %d events\n", kEvents);
  return 0;
}
