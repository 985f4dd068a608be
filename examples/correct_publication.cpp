// A correct publication through std::atomic: the writer fills a plain struct, then sets a flag
// with a release store; the reader waits for the flag with acquire loads, then reads the struct.
//
// Expected with pecan hunt: no finding (the release store and the acquire load that reads it
// order the plain accesses). Normal run: prints "answer 42: the answer" and exits 0.
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstdio>
#include <thread>

namespace {

struct Message {
  int answer = 0;
  const char* text = nullptr;
};

Message message;
std::atomic<bool> published{false};

void write_message() {
  message.answer = 42;
  message.text = "the answer";
  published.store(true, std::memory_order_release);
}

void read_message() {
  int polls = 0;
  while (!published.load(std::memory_order_acquire)) {
    polls++;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  assert(message.answer == 42 && message.text != nullptr);
  std::printf("answer %d: %s\n", message.answer, polls >= 0 ? message.text : "");
}

}  // namespace

int main() {
  std::thread reader(read_message);
  std::thread writer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    write_message();
  });
  writer.join();
  reader.join();
  return 0;
}
