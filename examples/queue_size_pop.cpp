// Check-then-act on a synchronized queue: a consumer asks for the size, then pops; another
// consumer can empty the queue in between, and the pop finds nothing.
//
// Bug: consume() calls size() (line 27) and then pop() (line 37); each holds the lock, the pair
// does not. When the other consumer's pop (line 40) runs in between and takes the last job, the
// assertion at line 37 fails.
// Normal run: the producer (main) posts job 1 only after consumer A took job 0, and consumer B
// starts 50 ms later, so each consumer finds one job. Prints "done 1 1" and exits 0.
// Expected with pecan hunt --regions functions: a confirmed atomicity violation (R-W-R on the
// count: A's size() at line 27, B's pop at line 40, A's pop at line 37) whose replay fails the
// assertion at line 37: the producer's second push waits for A, so the replay lets B take job 0.
#include <semaphore.h>

#include <cassert>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

// A bounded FIFO whose every method takes the lock: each call is atomic, a sequence is not.
class JobQueue {
 public:
  int size() {
    std::lock_guard<std::mutex> guard(lock_);
    return count_; /* BUG: check */
  }
  void push(int job) {
    std::lock_guard<std::mutex> guard(lock_);
    assert(count_ < kCapacity);
    jobs_[(head_ + count_) % kCapacity] = job;
    count_++;
  }
  int pop() {
    std::lock_guard<std::mutex> guard(lock_);
    assert(count_ > 0); /* BUG: act; ERROR: popped an empty queue */
    int job = jobs_[head_];           /* BUG: act (head_ and count_ are one atomic set) */
    head_ = (head_ + 1) % kCapacity;  /* BUG: the other consumer's pop */
    count_--; /* BUG: the other consumer's pop */
    return job;
  }

 private:
  static constexpr int kCapacity = 4;
  std::mutex lock_;
  int jobs_[kCapacity] = {};
  int head_ = 0;
  int count_ = 0;
};

JobQueue queue;
sem_t job_taken;  // consumer A -> producer: ready for the next job
int done[2];

void consume() {
  if (queue.size() > 0) {
    int job = queue.pop();
    done[job]++;
  }
}

}  // namespace

int main() {
  sem_init(&job_taken, 0, 0);
  queue.push(0);
  std::thread a([] {
    consume();
    sem_post(&job_taken);
  });
  std::thread b([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    consume();
  });
  sem_wait(&job_taken);
  queue.push(1);
  a.join();
  b.join();
  std::printf("done %d %d\n", done[0], done[1]);
  assert(done[0] == 1 && done[1] == 1);
  return 0;
}
