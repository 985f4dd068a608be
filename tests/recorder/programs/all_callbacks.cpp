// Makes the compiler emit (nearly) every __tsan_* callback and checks that each atomic really
// performed its operation: exits 0 only when every result is right, recorded or not.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

namespace {

int failures = 0;
void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "wrong result: %s\n", what);
    ++failures;
  }
}

template <typename T>
void ExerciseAtomic(std::atomic<T>& a, const char* width) {
  a.store(T(5), std::memory_order_release);
  Check(a.load(std::memory_order_acquire) == T(5), width);
  Check(a.exchange(T(6), std::memory_order_acq_rel) == T(5), width);
  Check(a.fetch_add(T(2), std::memory_order_relaxed) == T(6) && a.load() == T(8), width);
  Check(a.fetch_sub(T(1)) == T(8) && a.load() == T(7), width);
  Check(a.fetch_and(T(3)) == T(7) && a.load() == T(3), width);
  Check(a.fetch_or(T(4)) == T(3) && a.load() == T(7), width);
  Check(a.fetch_xor(T(1)) == T(7) && a.load() == T(6), width);
  T expected = T(6);
  Check(a.compare_exchange_strong(expected, T(9)) && a.load() == T(9), width);
  expected = T(1);
  Check(!a.compare_exchange_strong(expected, T(2), std::memory_order_seq_cst,
                                   std::memory_order_relaxed) &&
            expected == T(9),
        width);
  expected = T(9);
  while (!a.compare_exchange_weak(expected, T(10), std::memory_order_acq_rel,
                                  std::memory_order_acquire)) {
  }
  Check(a.load() == T(10), width);
  T raw = T(12);
  Check(__atomic_fetch_nand(&raw, T(10), __ATOMIC_SEQ_CST) == T(12) && raw == T(~(12 & 10)), width);
  Check(__sync_val_compare_and_swap(&raw, T(~(12 & 10)), T(1)) == T(~(12 & 10)) && raw == T(1),
        width);
}

struct __attribute__((packed)) Packed {
  char c;
  int i;
  long l;
};
struct Bits {
  int a : 3;
  int b : 5;
};
struct Base {
  virtual ~Base() = default;
  virtual int Value() { return 1; }
};
struct Derived : Base {
  int Value() override { return 2; }
};
struct alignas(16) Pair {
  long a, b;
};

std::atomic<char> a8;
std::atomic<short> a16;
std::atomic<int> a32;
std::atomic<long> a64;
__int128 i128;
volatile int vi;
volatile long vl;
volatile char vc;
Packed packed;
Bits bits;
int global;
std::mutex mutex;

}  // namespace

int main(int argc, char** argv) {
  ExerciseAtomic(a8, "8");
  ExerciseAtomic(a16, "16");
  ExerciseAtomic(a32, "32");
  ExerciseAtomic(a64, "64");

  __atomic_store_n(&i128, (__int128(1) << 100) + 5, __ATOMIC_RELEASE);
  Check(__atomic_load_n(&i128, __ATOMIC_ACQUIRE) == (__int128(1) << 100) + 5, "128 load");
  Check(__atomic_fetch_add(&i128, 1, __ATOMIC_SEQ_CST) == (__int128(1) << 100) + 5, "128 add");
  __int128 expected = (__int128(1) << 100) + 6;
  Check(__atomic_compare_exchange_n(&i128, &expected, 3, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST),
        "128 cas");
  Check(__atomic_exchange_n(&i128, 4, __ATOMIC_SEQ_CST) == 3 && i128 == 4, "128 exchange");

  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::atomic_signal_fence(std::memory_order_seq_cst);

  vi = argc;
  vl = vi + 1;
  vc = char(vl);
  packed.i = argc;
  packed.l = packed.i + 1;
  bits.b = argc;
  global += bits.a + bits.b;
  Check(packed.l == argc + 1 && vc == char(argc + 1), "plain");

  Base* object = argc > 5 ? new Base : new Derived;
  Check(object->Value() == 2, "virtual");
  delete object;

  char buffer[64];
  std::memcpy(buffer, argv[0], 16);
  std::memset(buffer + 16, 1, 8);
  std::memmove(buffer + 1, buffer, 20);
  Packed copies[3] = {};
  copies[1] = packed;
  packed = copies[2];

  std::thread thread([] {
    std::lock_guard<std::mutex> lock(mutex);
    ++global;
  });
  thread.join();
  std::printf("i128 %p\n", static_cast<void*>(&i128));
  std::printf("a32 %p\n", static_cast<void*>(&a32));
  return failures == 0 ? 0 : 1;
}
