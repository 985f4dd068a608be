// Finds the runtime's own loaded segments once, at load, with dladdr and dl_iterate_phdr.
#include "recorder/runtime_code_range.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <limits>

namespace pecan::rt {

uint64_t runtime_code_begin = 0;
uint64_t runtime_code_end = 0;

namespace {

int CollectSegments(dl_phdr_info* info, size_t, void* runtime_base) {
  if (reinterpret_cast<void*>(info->dlpi_addr) != runtime_base) return 0;
  uint64_t begin = std::numeric_limits<uint64_t>::max();
  uint64_t end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    begin = std::min<uint64_t>(begin, info->dlpi_addr + segment.p_vaddr);
    end = std::max<uint64_t>(end, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
  }
  if (begin < end) {
    runtime_code_begin = begin;
    runtime_code_end = end;
  }
  return 1;
}

// At load: before the constructors of the instrumented objects, which depend on this library
// and start the recording.
__attribute__((constructor(101))) void FindRuntimeCode() {
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&FindRuntimeCode), &self) == 0) return;
  dl_iterate_phdr(CollectSegments, self.dli_fbase);
}

}  // namespace
}  // namespace pecan::rt
