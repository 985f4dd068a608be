// The repeat filter's table: mmap'd so the runtime's own memory never shows up as ALLOC/FREE.
#include "recorder/repeat_filter.h"

#include <sys/mman.h>

#include <cstring>

namespace pecan::rt {

RepeatEntry* CreateRepeatTable() {
  void* memory = mmap(nullptr, kRepeatEntries * sizeof(RepeatEntry), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return memory == MAP_FAILED ? nullptr : static_cast<RepeatEntry*>(memory);
}

void DestroyRepeatTable(RepeatEntry* table) {
  if (table != nullptr) munmap(table, kRepeatEntries * sizeof(RepeatEntry));
}

void StartNextEpochSlow(RepeatEntry* table, uint64_t& epoch_tag) {
  if (table != nullptr) std::memset(table, 0, kRepeatEntries * sizeof(RepeatEntry));
  epoch_tag = kFirstEpochTag;
}

}  // namespace pecan::rt
