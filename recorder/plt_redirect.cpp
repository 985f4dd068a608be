// The instrumented modules' relocations, walked through their dynamic sections: every
// JUMP_SLOT, GLOB_DAT or absolute 64-bit slot that names a function the runtime defines gets the
// runtime's definition. Runs at start-up and for each dlopen(), never on the hot path.
#include "recorder/plt_redirect.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "recorder/load_order.h"
#include "recorder/spin_lock.h"
#include "recorder/thread_state.h"

namespace pecan::rt {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr uint32_t kGlobalData = R_X86_64_GLOB_DAT;
constexpr uint32_t kAbsolute64 = R_X86_64_64;
#elif defined(__aarch64__)
constexpr uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT;
constexpr uint32_t kGlobalData = R_AARCH64_GLOB_DAT;
constexpr uint32_t kAbsolute64 = R_AARCH64_ABS64;
#else
#error "plt_redirect.cpp knows the relocation types of x86-64 and AArch64 only"
#endif

using ElfSym = ElfW(Sym);
using ElfRela = ElfW(Rela);
using ElfDyn = ElfW(Dyn);
using ElfAddr = ElfW(Addr);
using ElfPhdr = ElfW(Phdr);

std::atomic<bool> redirecting{false};
std::atomic<bool> failed{false};
// dlpi_adds at the last pass: no module added since, nothing to do.
std::atomic<unsigned long long> seen_adds{0};
// Held only around making RELRO writable, writing and making it read-only again, never over a
// call that takes the loader's locks: a dlopen() holds those while the new module's constructor
// calls __tsan_init and with it a pass of its own.
SpinLock write_lock;

// One slot to point at the runtime's definition.
struct SlotWrite {
  uintptr_t* slot = nullptr;
  uintptr_t value = 0;
};

// A module's dynamic section, its addresses made absolute (glibc has relocated most of them in
// place already; the vDSO's are still relative).
struct DynamicInfo {
  const ElfSym* symbols = nullptr;
  const char* strings = nullptr;
  const ElfRela* plt_relocations = nullptr;
  size_t plt_bytes = 0;
  const ElfRela* relocations = nullptr;
  size_t relocation_bytes = 0;
  bool plt_uses_rela = true;
};

template <typename T>
const T* Absolute(ElfAddr base, ElfAddr pointer) {
  return reinterpret_cast<const T*>(pointer < base ? base + pointer : pointer);
}

bool ReadDynamic(const dl_phdr_info& module, DynamicInfo& info) {
  const ElfDyn* dynamic = nullptr;
  for (int i = 0; i < module.dlpi_phnum; ++i)
    if (module.dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfDyn*>(module.dlpi_addr + module.dlpi_phdr[i].p_vaddr);
  if (dynamic == nullptr) return false;
  const ElfAddr base = module.dlpi_addr;
  for (const ElfDyn* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
    switch (entry->d_tag) {
      case DT_SYMTAB:
        info.symbols = Absolute<ElfSym>(base, entry->d_un.d_ptr);
        break;
      case DT_STRTAB:
        info.strings = Absolute<char>(base, entry->d_un.d_ptr);
        break;
      case DT_JMPREL:
        info.plt_relocations = Absolute<ElfRela>(base, entry->d_un.d_ptr);
        break;
      case DT_PLTRELSZ:
        info.plt_bytes = entry->d_un.d_val;
        break;
      case DT_PLTREL:
        info.plt_uses_rela = entry->d_un.d_val == DT_RELA;
        break;
      case DT_RELA:
        info.relocations = Absolute<ElfRela>(base, entry->d_un.d_ptr);
        break;
      case DT_RELASZ:
        info.relocation_bytes = entry->d_un.d_val;
        break;
      default:
        break;
    }
  }
  return info.symbols != nullptr && info.strings != nullptr && info.plt_uses_rela;
}

const char* SymbolName(const DynamicInfo& info, const ElfRela& relocation) {
  const ElfSym& symbol = info.symbols[ELF64_R_SYM(relocation.r_info)];
  return info.strings + symbol.st_name;
}

// Calls `visit(relocation)` for the module's PLT and dynamic relocations that name a symbol.
template <typename Visit>
void ForEachSymbolRelocation(const DynamicInfo& info, Visit visit) {
  const ElfRela* tables[] = {info.plt_relocations, info.relocations};
  const size_t sizes[] = {info.plt_bytes, info.relocation_bytes};
  for (int t = 0; t < 2; ++t) {
    if (tables[t] == nullptr) continue;
    for (size_t i = 0; i < sizes[t] / sizeof(ElfRela); ++i)
      if (ELF64_R_SYM(tables[t][i].r_info) != 0) visit(tables[t][i]);
  }
}

// Instrumented code calls __tsan_init from its constructors (and __tsan_func_entry, ...).
bool ReferencesInstrumentation(const DynamicInfo& info) {
  bool found = false;
  ForEachSymbolRelocation(info, [&](const ElfRela& relocation) {
    found = found || std::strncmp(SymbolName(info, relocation), "__tsan_", 7) == 0;
  });
  return found;
}

// Makes the module's read-only-after-relocation part (PT_GNU_RELRO) writable or read-only again:
// the pages ld.so protected, both ends rounded down as it does (the page the part ends in holds
// writable data too and was left writable).
void ProtectRelro(const dl_phdr_info& module, int protection) {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < module.dlpi_phnum; ++i) {
    const ElfPhdr& header = module.dlpi_phdr[i];
    if (header.p_type != PT_GNU_RELRO) continue;
    const uintptr_t begin = (module.dlpi_addr + header.p_vaddr) & ~(page - 1);
    const uintptr_t end = (module.dlpi_addr + header.p_vaddr + header.p_memsz) & ~(page - 1);
    if (begin != end && mprotect(reinterpret_cast<void*>(begin), end - begin, protection) != 0)
      failed = true;
  }
}

// The slots of an instrumented module that name a function the runtime defines, and the
// runtime's definition for each (none for a module without instrumentation).
std::vector<SlotWrite> PlanRedirect(const dl_phdr_info& module, void* runtime) {
  std::vector<SlotWrite> writes;
  DynamicInfo info;
  if (!ReadDynamic(module, info) || !ReferencesInstrumentation(info)) return writes;
  ForEachSymbolRelocation(info, [&](const ElfRela& relocation) {
    const uint32_t type = ELF64_R_TYPE(relocation.r_info);
    if (type != kJumpSlot && type != kGlobalData && type != kAbsolute64) return;
    const char* name = SymbolName(info, relocation);
    void* definition = dlsym(runtime, name);
    if (!DefinedByRuntime(definition)) return;  // not ours, or libc's behind us in that scope
    writes.push_back({reinterpret_cast<uintptr_t*>(module.dlpi_addr + relocation.r_offset),
                      reinterpret_cast<uintptr_t>(definition) +
                          (type == kAbsolute64 ? uintptr_t(relocation.r_addend) : 0)});
  });
  return writes;
}

void Redirect(const dl_phdr_info& module, const std::vector<SlotWrite>& writes) {
  if (writes.empty()) return;
  SpinLockGuard guard(write_lock);
  ProtectRelro(module, PROT_READ | PROT_WRITE);
  for (const SlotWrite& write : writes) *write.slot = write.value;
  ProtectRelro(module, PROT_READ);
}

// Copies each loaded module's description; the redirecting happens after dl_iterate_phdr has
// returned, because dlsym and dladdr take the loader's other lock (a concurrent dlopen holds that
// one and waits for dl_iterate_phdr's).
int CollectModule(dl_phdr_info* module, size_t, void* modules) {
  if (module->dlpi_name != nullptr && std::strncmp(module->dlpi_name, "linux-vdso", 10) == 0)
    return 0;
  static_cast<std::vector<dl_phdr_info>*>(modules)->push_back(*module);
  return 0;
}

int ReadAdds(dl_phdr_info* module, size_t, void* adds) {
  *static_cast<unsigned long long*>(adds) = module->dlpi_adds;
  return 1;
}

}  // namespace

bool RedirectInstrumentedModules() {
  if (failed.load(std::memory_order_relaxed)) return false;
  RuntimeScope scope;  // dlopen, dlsym and the module list allocate
  unsigned long long adds = 0;
  dl_iterate_phdr(ReadAdds, &adds);
  if (redirecting.load(std::memory_order_acquire) &&
      adds == seen_adds.load(std::memory_order_relaxed))
    return true;
  void* runtime = dlopen(RuntimeLibraryPath(), RTLD_NOW | RTLD_NOLOAD);
  if (runtime == nullptr) {
    failed = true;
    return false;
  }
  std::vector<dl_phdr_info> modules;
  dl_iterate_phdr(CollectModule, &modules);
  // Passes may overlap (threads dlopen()ing at once): each writes the same values.
  for (const dl_phdr_info& module : modules) Redirect(module, PlanRedirect(module, runtime));
  dlclose(runtime);
  seen_adds.store(adds, std::memory_order_relaxed);
  redirecting.store(true, std::memory_order_release);
  return !failed.load(std::memory_order_relaxed);
}

bool RedirectingModules() {
  return redirecting.load(std::memory_order_acquire);
}

}  // namespace pecan::rt
