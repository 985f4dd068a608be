// Symbolizer: sites to function/file/line through each module's DWARF (elfutils libdwfl, one
// offline session per module file), and addresses to global names through the ELF symbol tables.
#include "analyzer/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "analyzer/heap_blocks.h"
#include "trace_format/log.h"

namespace pecan {
namespace {

// "_ZN2ns7counterE" -> "ns::counter"; anything that is not a mangled name stays as it is (a C
// global named `y` must not come back as the type "unsigned long long").
std::string Demangle(const char* name) {
  if (name == nullptr) return {};
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string result = demangled;
  std::free(demangled);
  return result;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// "name" for the start of a named range, "name+16" inside it.
std::string NameWithOffset(const std::string& name, uint64_t offset) {
  return offset == 0 ? name : name + "+" + std::to_string(offset);
}

// A named address range (a global variable, or an STD variable or lock).
struct NamedRange {
  uint64_t start = 0;
  uint64_t size = 0;  // 0: matches its start address only
  std::string name;
};

// Symbol tables hold aliases and, rarely, a symbol inside a bigger one: how many ranges that
// start before an address are tried, nearest first, before giving up on naming it.
constexpr int kRangesTriedBeforeAddress = 8;

// The range covering `address` in `ranges` (sorted by start), if any.
const NamedRange* FindRange(const std::vector<NamedRange>& ranges, uint64_t address) {
  auto after = std::upper_bound(ranges.begin(), ranges.end(), address,
                                [](uint64_t a, const NamedRange& r) { return a < r.start; });
  for (int tried = 0; after != ranges.begin() && tried < kRangesTriedBeforeAddress; ++tried) {
    --after;
    uint64_t offset = address - after->start;
    if (offset < std::max<uint64_t>(after->size, 1)) return &*after;
  }
  return nullptr;
}

void SortRanges(std::vector<NamedRange>& ranges) {
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const NamedRange& a, const NamedRange& b) { return a.start < b.start; });
}

// One module file opened for symbolization. Addresses inside it are file addresses (the module
// is reported at bias 0), i.e. a site's offset, or a runtime address minus the load address.
class ModuleDebugInfo {
 public:
  ModuleDebugInfo(const std::string& path, const std::string& expected_build_id) {
    callbacks_.find_elf = dwfl_build_id_find_elf;
    callbacks_.find_debuginfo = dwfl_standard_find_debuginfo;
    callbacks_.section_address = dwfl_offline_section_address;
    callbacks_.debuginfo_path = &debuginfo_path_;
    dwfl_ = dwfl_begin(&callbacks_);
    if (dwfl_ == nullptr) return;
    dwfl_report_begin(dwfl_);
    module_ = dwfl_report_elf(dwfl_, path.c_str(), path.c_str(), -1, 0, false);
    dwfl_report_end(dwfl_, nullptr, nullptr);
    if (module_ == nullptr) return;
    if (!expected_build_id.empty() && !BuildIdMatches(expected_build_id)) {
      LogWarning(path +
                 " is not the file that was recorded (its build-id differs): "
                 "its sites stay unsymbolized");
      module_ = nullptr;
      return;
    }
    dwfl_module_info(module_, nullptr, &low_, &high_, nullptr, nullptr, nullptr, nullptr);
  }
  ~ModuleDebugInfo() {
    if (dwfl_ != nullptr) dwfl_end(dwfl_);
  }
  ModuleDebugInfo(const ModuleDebugInfo&) = delete;
  ModuleDebugInfo& operator=(const ModuleDebugInfo&) = delete;

  bool usable() const { return module_ != nullptr; }
  bool Contains(uint64_t file_address) const {
    return usable() && file_address >= low_ && file_address < high_;
  }

  // Function (innermost, inlined ones included), file and line of the code at `pc`.
  SourceLocation Resolve(uint64_t pc) {
    SourceLocation location;
    if (!usable()) return location;
    Dwarf_Addr bias = 0;
    Dwarf_Die* unit = UnitAt(pc, &bias);
    if (unit != nullptr) {
      if (Dwarf_Line* line = dwarf_getsrc_die(unit, pc - bias)) {
        int line_number = 0;
        const char* file = dwarf_linesrc(line, nullptr, nullptr);
        if (file != nullptr && dwarf_lineno(line, &line_number) == 0 && line_number > 0) {
          location.file = file;
          location.line = static_cast<uint32_t>(line_number);
        }
      }
      location.function = FunctionIn(unit, pc - bias);
    }
    if (location.function.empty()) location.function = Demangle(dwfl_module_addrname(module_, pc));
    return location;
  }

  // The data symbol (STT_OBJECT) covering `file_address`, as "name" or "name+offset".
  std::optional<std::string> DataSymbolAt(uint64_t file_address) {
    if (!Contains(file_address)) return std::nullopt;
    if (!data_symbols_loaded_) LoadDataSymbols();
    const NamedRange* range = FindRange(data_symbols_, file_address);
    if (range == nullptr) return std::nullopt;
    return NameWithOffset(range->name, file_address - range->start);
  }

 private:
  bool BuildIdMatches(const std::string& expected) {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    int length = dwfl_module_build_id(module_, &bits, &vaddr);
    // A file without a build-id cannot be checked; trust the path.
    if (length <= 0) return true;
    return expected.size() == static_cast<size_t>(length) &&
           std::memcmp(expected.data(), bits, expected.size()) == 0;
  }

  // The compile unit covering `pc`. libdwfl finds it through .debug_aranges, which clang does not
  // emit (elfutils before 0.192 then finds nothing); then the unit's own address ranges decide.
  Dwarf_Die* UnitAt(uint64_t pc, Dwarf_Addr* bias) {
    if (Dwarf_Die* unit = dwfl_module_addrdie(module_, pc, bias)) return unit;
    if (!unit_ranges_loaded_) LoadUnitRanges();
    *bias = dwarf_bias_;
    const uint64_t address = pc - dwarf_bias_;
    auto after =
        std::upper_bound(unit_ranges_.begin(), unit_ranges_.end(), address,
                         [](uint64_t a, const UnitRange& range) { return a < range.start; });
    if (after == unit_ranges_.begin()) return nullptr;
    --after;
    return address < after->end ? &units_[after->unit] : nullptr;
  }

  void LoadUnitRanges() {
    unit_ranges_loaded_ = true;
    Dwarf* dwarf = dwfl_module_getdwarf(module_, &dwarf_bias_);
    if (dwarf == nullptr) return;
    Dwarf_Off offset = 0;
    Dwarf_Off next = 0;
    size_t header_size = 0;
    while (dwarf_nextcu(dwarf, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die unit;
      if (dwarf_offdie(dwarf, offset + header_size, &unit) != nullptr) {
        ptrdiff_t cursor = 0;
        Dwarf_Addr base = 0;
        Dwarf_Addr start = 0;
        Dwarf_Addr end = 0;
        bool kept = false;
        while ((cursor = dwarf_ranges(&unit, cursor, &base, &start, &end)) > 0) {
          if (end <= start) continue;
          unit_ranges_.push_back(UnitRange{start, end, units_.size()});
          kept = true;
        }
        if (kept) units_.push_back(unit);
      }
      offset = next;
    }
    std::sort(unit_ranges_.begin(), unit_ranges_.end(),
              [](const UnitRange& a, const UnitRange& b) { return a.start < b.start; });
  }

  // The innermost function (inlined ones included) around `address` (a DWARF address) in `unit`.
  std::string FunctionIn(Dwarf_Die* unit, uint64_t address) {
    Dwarf_Die* scopes = nullptr;
    int count = dwarf_getscopes(unit, address, &scopes);
    std::string name;
    for (int i = 0; i < count && name.empty(); ++i) {
      int tag = dwarf_tag(&scopes[i]);
      if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine) continue;
      Dwarf_Attribute attribute;
      const char* linkage = nullptr;
      if (dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &attribute) != nullptr ||
          dwarf_attr_integrate(&scopes[i], DW_AT_MIPS_linkage_name, &attribute) != nullptr) {
        linkage = dwarf_formstring(&attribute);
      }
      if (linkage != nullptr) {
        name = Demangle(linkage);
      } else if (const char* plain = dwarf_diename(&scopes[i])) {
        name = plain;
      }
    }
    std::free(scopes);
    return name;
  }

  void LoadDataSymbols() {
    data_symbols_loaded_ = true;
    int count = dwfl_module_getsymtab(module_);
    for (int i = 1; i < count; ++i) {
      GElf_Sym symbol;
      GElf_Addr address = 0;
      GElf_Word section = 0;
      const char* name =
          dwfl_module_getsym_info(module_, i, &symbol, &address, &section, nullptr, nullptr);
      if (name == nullptr || *name == '\0' || GELF_ST_TYPE(symbol.st_info) != STT_OBJECT ||
          section == SHN_UNDEF) {
        continue;
      }
      data_symbols_.push_back(NamedRange{address, symbol.st_size, Demangle(name)});
    }
    SortRanges(data_symbols_);
  }

  char* debuginfo_path_ = nullptr;
  Dwfl_Callbacks callbacks_{};
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* module_ = nullptr;
  Dwarf_Addr low_ = 0;
  Dwarf_Addr high_ = 0;
  bool data_symbols_loaded_ = false;
  std::vector<NamedRange> data_symbols_;
  // UnitAt's own index: each compile unit's address ranges, sorted by start.
  struct UnitRange {
    uint64_t start = 0;
    uint64_t end = 0;  // exclusive
    size_t unit = 0;   // into units_
  };
  bool unit_ranges_loaded_ = false;
  Dwarf_Addr dwarf_bias_ = 0;
  std::vector<UnitRange> unit_ranges_;
  std::vector<Dwarf_Die> units_;
};

}  // namespace

struct Symbolizer::Impl {
  const Trace& trace;
  std::unordered_map<uint32_t, std::unique_ptr<ModuleDebugInfo>> modules;  // by module id
  std::vector<std::optional<SourceLocation>> resolved;                     // by site id
  std::vector<NamedRange> trace_names;                                     // Trace::names, sorted
  std::unique_ptr<HeapBlocks> heap_blocks;  // built on the first heap address named

  explicit Impl(const Trace& t) : trace(t) {
    for (const AddressName& entry : trace.names) {
      trace_names.push_back(NamedRange{entry.address, entry.size, entry.name});
    }
    SortRanges(trace_names);
  }

  const ModuleInfo* FindModule(uint32_t id) const {
    for (const ModuleInfo& module : trace.modules) {
      if (module.id == id) return &module;
    }
    return nullptr;
  }

  // The module's file: its recorded path, or the program for a module recorded without one.
  std::string ModulePath(const ModuleInfo& module) const {
    return module.path.empty() ? trace.meta.program : module.path;
  }

  ModuleDebugInfo* Module(const ModuleInfo& module) {
    auto found = modules.find(module.id);
    if (found == modules.end()) {
      std::string path = ModulePath(module);
      auto info = path.empty() ? nullptr : std::make_unique<ModuleDebugInfo>(path, module.build_id);
      found = modules.emplace(module.id, std::move(info)).first;
    }
    return found->second && found->second->usable() ? found->second.get() : nullptr;
  }
};

Symbolizer::Symbolizer(const Trace& trace) : impl_(std::make_unique<Impl>(trace)) {}
Symbolizer::~Symbolizer() = default;

SourceLocation Symbolizer::Resolve(SiteId site) {
  if (site >= impl_->trace.sites.size()) return {};
  if (impl_->resolved.size() <= site) impl_->resolved.resize(impl_->trace.sites.size());
  std::optional<SourceLocation>& cached = impl_->resolved[site];
  if (!cached) {
    cached.emplace();
    const SiteInfo& info = impl_->trace.sites[site];
    const ModuleInfo* module = info.module == kNoModule ? nullptr : impl_->FindModule(info.module);
    if (ModuleDebugInfo* debug = module ? impl_->Module(*module) : nullptr) {
      // Sites are return addresses: the call that made the event is the instruction before.
      *cached = debug->Resolve(info.offset > 0 ? info.offset - 1 : 0);
    }
  }
  return *cached;
}

std::string Symbolizer::Describe(SiteId site) {
  if (site >= impl_->trace.sites.size())
    return "site " + std::to_string(site) + " (not in the trace)";
  const SiteInfo& info = impl_->trace.sites[site];
  if (info.module == kNoModule) return "loc " + std::to_string(info.offset);
  SourceLocation location = Resolve(site);
  if (!location.file.empty()) {
    std::string text = location.file + ":" + std::to_string(location.line);
    return location.function.empty() ? text : text + " (" + location.function + ")";
  }
  const ModuleInfo* module = impl_->FindModule(info.module);
  std::string text = (module ? BaseName(impl_->ModulePath(*module)) : "?") + "+" + Hex(info.offset);
  return location.function.empty() ? text : text + " (" + location.function + ")";
}

std::optional<std::string> Symbolizer::NameOfEventAddress(EventIndex event) {
  const Trace& trace = impl_->trace;
  if (event >= trace.size_events()) return std::nullopt;
  const uint64_t address = trace.addr[event];
  if (auto name = NameOfAddress(address)) return name;
  const EventKind kind = trace.kind[event];
  if (!IsAccess(kind) && kind != EventKind::kFree && kind != EventKind::kAlloc &&
      !IsAcquire(kind) && !IsRelease(kind))
    return std::nullopt;
  if (!impl_->heap_blocks) impl_->heap_blocks = std::make_unique<HeapBlocks>(trace);
  // An ALLOC names the block it creates; anything else the block allocated before it.
  const std::optional<HeapBlock> block =
      impl_->heap_blocks->At(address, kind == EventKind::kAlloc ? event + 1 : event);
  if (!block) return std::nullopt;
  const ThreadId thread = trace.thread[block->alloc];
  const std::string thread_name =
      thread < trace.threads.size() && !trace.threads[thread].name.empty()
          ? trace.threads[thread].name
          : "T" + std::to_string(thread);
  const SiteId site = trace.site[block->alloc];
  const SourceLocation at = Resolve(site);
  std::string where;
  if (!at.file.empty() && at.line != 0) {
    where = at.file.substr(at.file.find_last_of('/') + 1) + ":" + std::to_string(at.line);
    if (!at.function.empty()) where += " (in " + at.function + ")";
  } else {
    where = Describe(site);
  }
  const std::string name = "heap block of " + std::to_string(block->size) +
                           (block->size == 1 ? " byte" : " bytes") + " allocated by " +
                           thread_name + " at " + where;
  const uint64_t offset = address - block->begin;
  return offset == 0 ? name : "byte " + std::to_string(offset) + " of a " + name;
}

std::optional<std::string> Symbolizer::NameOfAddress(uint64_t address) {
  if (const NamedRange* range = FindRange(impl_->trace_names, address)) {
    return NameWithOffset(range->name, address - range->start);
  }
  for (const ModuleInfo& module : impl_->trace.modules) {
    if (address < module.load_address) continue;
    ModuleDebugInfo* debug = impl_->Module(module);
    if (debug == nullptr) continue;
    if (auto name = debug->DataSymbolAt(address - module.load_address)) return name;
  }
  return std::nullopt;
}

}  // namespace pecan
