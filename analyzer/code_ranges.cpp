// Function and line ranges from the ELF symbol table and the DWARF line table (elfutils, one
// offline session per call, like the symbolizer's).
#include "analyzer/code_ranges.h"

#include <cxxabi.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "trace_format/error.h"

namespace pecan {
namespace {

std::string Demangled(const char* name) {
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string result = demangled;
  std::free(demangled);
  return result;
}

// "f" matches "f", and "ns::f" matches "ns::f(int)" and "ns::f() const".
bool NameMatches(const std::string& symbol, const std::string& wanted) {
  if (symbol == wanted) return true;
  return symbol.size() > wanted.size() && symbol.compare(0, wanted.size(), wanted) == 0 &&
         symbol[wanted.size()] == '(';
}

bool PathEndsWith(const std::string& path, const std::string& suffix) {
  if (path.size() < suffix.size() ||
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  return path.size() == suffix.size() || suffix.front() == '/' ||
         path[path.size() - suffix.size() - 1] == '/';
}

// One offline libdwfl session on a module file, reported at bias 0.
class OfflineModule {
 public:
  explicit OfflineModule(const std::string& path) {
    callbacks_.find_elf = dwfl_build_id_find_elf;
    callbacks_.find_debuginfo = dwfl_standard_find_debuginfo;
    callbacks_.section_address = dwfl_offline_section_address;
    callbacks_.debuginfo_path = &debuginfo_path_;
    dwfl_ = dwfl_begin(&callbacks_);
    if (dwfl_ != nullptr) {
      dwfl_report_begin(dwfl_);
      module_ = dwfl_report_elf(dwfl_, path.c_str(), path.c_str(), -1, 0, false);
      dwfl_report_end(dwfl_, nullptr, nullptr);
    }
    if (module_ == nullptr) throw PecanError(path + ": cannot read it as an ELF file");
  }
  ~OfflineModule() {
    if (dwfl_ != nullptr) dwfl_end(dwfl_);
  }
  OfflineModule(const OfflineModule&) = delete;
  OfflineModule& operator=(const OfflineModule&) = delete;
  Dwfl_Module* module() const { return module_; }

 private:
  char* debuginfo_path_ = nullptr;
  Dwfl_Callbacks callbacks_{};
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* module_ = nullptr;
};

void SortAndMerge(std::vector<CodeRange>& ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const CodeRange& a, const CodeRange& b) { return a.begin < b.begin; });
  std::vector<CodeRange> merged;
  for (const CodeRange& range : ranges) {
    if (!merged.empty() && range.begin <= merged.back().end)
      merged.back().end = std::max(merged.back().end, range.end);
    else
      merged.push_back(range);
  }
  ranges = std::move(merged);
}

}  // namespace

std::vector<CodeRange> FunctionCode(const std::string& module_path, const std::string& function) {
  OfflineModule file(module_path);
  std::vector<CodeRange> ranges;
  const int count = dwfl_module_getsymtab(file.module());
  for (int i = 1; i < count; ++i) {
    GElf_Sym symbol;
    GElf_Addr address = 0;
    GElf_Word section = 0;
    const char* name =
        dwfl_module_getsym_info(file.module(), i, &symbol, &address, &section, nullptr, nullptr);
    if (name == nullptr || *name == '\0' || GELF_ST_TYPE(symbol.st_info) != STT_FUNC ||
        section == SHN_UNDEF || symbol.st_size == 0)
      continue;
    if (NameMatches(Demangled(name), function))
      ranges.push_back({address, address + symbol.st_size});
  }
  SortAndMerge(ranges);
  return ranges;
}

std::vector<CodeRange> LineCode(const std::string& module_path, const std::string& file, int first,
                                int last) {
  OfflineModule module(module_path);
  std::vector<CodeRange> ranges;
  Dwarf_Addr bias = 0;
  Dwarf* dwarf = dwfl_module_getdwarf(module.module(), &bias);
  if (dwarf == nullptr) return ranges;
  Dwarf_Off offset = 0, next = 0;
  size_t header_size = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die unit;
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_offdie(dwarf, offset + header_size, &unit) != nullptr &&
        dwarf_getsrclines(&unit, &lines, &count) == 0) {
      for (size_t i = 0; i + 1 < count; ++i) {
        Dwarf_Line* line = dwarf_onesrcline(lines, i);
        Dwarf_Line* following = dwarf_onesrcline(lines, i + 1);
        int number = 0;
        Dwarf_Addr address = 0, end = 0;
        bool end_sequence = false;
        const char* source = dwarf_linesrc(line, nullptr, nullptr);
        if (source == nullptr || dwarf_lineno(line, &number) != 0 || number < first ||
            number > last || dwarf_lineendsequence(line, &end_sequence) != 0 || end_sequence ||
            dwarf_lineaddr(line, &address) != 0 || dwarf_lineaddr(following, &end) != 0 ||
            end <= address || !PathEndsWith(source, file))
          continue;
        ranges.push_back({address + bias, end + bias});
      }
    }
    offset = next;
  }
  SortAndMerge(ranges);
  return ranges;
}

}  // namespace pecan
