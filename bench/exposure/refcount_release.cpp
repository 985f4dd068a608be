// refcount_release: release() decrements the reference count under the buffer's mutex but tests
// it after unlocking; both owners can see zero and delete the buffer twice.
// Lines: 20, 21 (marked BUG)
// Expected failure: crash
#include <cstring>
#include <mutex>
#include <thread>

struct Buffer {
  std::mutex mutex;
  int refs = 2;
  char data[64];
};

static void release(Buffer *buffer) {
  {
    std::lock_guard<std::mutex> guard(buffer->mutex);
    --buffer->refs;
  }
  if (buffer->refs == 0) // BUG: read after unlocking; both owners may see 0
    delete buffer;       // BUG: double delete
}

int main() {
  auto *buffer = new Buffer();
  std::memset(buffer->data, 0, sizeof buffer->data);
  std::thread sender([buffer] {
    buffer->data[0] = 1;
    release(buffer);
  });
  std::thread archiver([buffer] { release(buffer); });
  sender.join();
  archiver.join();
  return 0;
}
