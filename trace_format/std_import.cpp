// STD text import: parses THREAD|OP(TARGET)|LOCATION lines into a Trace, mapping thread,
// variable, lock and location names to dense ids and synthetic addresses (see STD_FORMAT.md).
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace_format/error.h"
#include "trace_format/std_format.h"
#include "trace_format/std_vocabulary.h"
#include "trace_format/utf8_text.h"
#include "trace_format/version.h"

namespace pecan {
namespace {

constexpr size_t kNamespaceCount = static_cast<size_t>(StdNamespace::kThread) + 1;

std::string_view Trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

std::optional<uint64_t> ParseDecimal(std::string_view s) {
  uint64_t value = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// 64-bit FNV-1a: a stable number for a non-numeric location label.
uint64_t HashLabel(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// Names of one namespace in order of first appearance, with the bytes each one needs.
struct NameTable {
  std::unordered_map<std::string, uint32_t> index;
  std::vector<std::string> names;
  std::vector<uint64_t> footprint;

  uint32_t Intern(std::string_view name, uint64_t bytes) {
    auto [it, inserted] = index.try_emplace(std::string(name), static_cast<uint32_t>(names.size()));
    if (inserted) {
      names.emplace_back(name);
      footprint.push_back(bytes);
    } else if (footprint[it->second] < bytes) {
      footprint[it->second] = bytes;
    }
    return it->second;
  }
};

class StdImporter {
 public:
  explicit StdImporter(const std::string& source) : source_(source) {}

  Trace Run(std::istream& in) {
    std::string line;
    uint64_t line_number = 0;
    while (std::getline(in, line)) {
      ++line_number;
      ParseLine(line, line_number);
    }
    if (in.bad()) throw PecanError(source_ + ": read error");
    AssignThreadIds();
    AssignAddresses();
    trace_.meta.format_major = kTraceFormatMajor;
    trace_.meta.format_minor = kTraceFormatMinor;
    trace_.meta.producer = "std-import";
    trace_.meta.program = source_;
    return std::move(trace_);
  }

 private:
  [[noreturn]] void Fail(uint64_t line_number, const std::string& what) const {
    throw PecanError(source_ + ":" + std::to_string(line_number) + ": " + what);
  }

  uint32_t InternThread(std::string_view name) {
    auto [it, inserted] = thread_index_.try_emplace(std::string(name), thread_names_.size());
    if (inserted) {
      thread_names_.emplace_back(name);
      thread_parent_.push_back(std::nullopt);
      thread_ordinal_.push_back(0);
      children_.push_back(0);
    }
    return it->second;
  }

  SiteId InternSite(std::string_view location, uint64_t line_number) {
    auto numeric = ParseDecimal(location);
    uint64_t offset;
    if (numeric && *numeric < kStdLabelSiteBit) {
      offset = *numeric;
    } else {
      offset = kStdLabelSiteBit | HashLabel(location);
      auto [it, inserted] = label_of_offset_.try_emplace(offset, std::string(location));
      if (!inserted && it->second != location)
        Fail(line_number, "location labels '" + it->second + "' and '" + std::string(location) +
                              "' collide; rename one");
    }
    auto [it, inserted] =
        site_of_offset_.try_emplace(offset, static_cast<SiteId>(trace_.sites.size()));
    if (inserted) trace_.sites.push_back(SiteInfo{kNoModule, offset});
    return it->second;
  }

  void ParseLine(std::string_view raw, uint64_t line_number) {
    std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#') return;
    // Names become protobuf strings and JSON, which must be UTF-8: refuse here, where the
    // line is known, rather than write a trace nothing can read back.
    if (size_t bad = FirstInvalidUtf8(raw); bad != std::string_view::npos) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(raw[bad]));
      Fail(line_number,
           std::string("not UTF-8 text: byte ") + byte + " at column " + std::to_string(bad + 1));
    }

    size_t bar1 = line.find('|');
    size_t bar2 = bar1 == std::string_view::npos ? bar1 : line.find('|', bar1 + 1);
    if (bar2 == std::string_view::npos)
      Fail(line_number, "expected THREAD|OP(TARGET)|LOCATION, got '" + std::string(line) + "'");
    if (line.find('|', bar2 + 1) != std::string_view::npos)
      Fail(line_number, "too many '|' fields (expected THREAD|OP(TARGET)|LOCATION)");
    std::string_view thread_name = Trim(line.substr(0, bar1));
    std::string_view op_field = Trim(line.substr(bar1 + 1, bar2 - bar1 - 1));
    std::string_view location = Trim(line.substr(bar2 + 1));
    if (thread_name.empty()) Fail(line_number, "empty thread name");
    if (op_field.empty()) Fail(line_number, "empty operation");
    if (location.empty()) Fail(line_number, "empty location");

    std::string_view op_name = op_field;
    std::string_view inside;
    bool has_parentheses = false;
    if (size_t open = op_field.find('('); open != std::string_view::npos) {
      if (op_field.back() != ')')
        Fail(line_number, "operation '" + std::string(op_field) + "' lacks its closing ')'");
      has_parentheses = true;
      op_name = Trim(op_field.substr(0, open));
      inside = Trim(op_field.substr(open + 1, op_field.size() - open - 2));
    }
    std::string lower(op_name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const StdOperation* op = FindStdOperation(lower, has_parentheses);
    if (!op) {
      if (FindStdOperation(lower, !has_parentheses))
        Fail(line_number,
             "operation '" + lower +
                 (has_parentheses ? "' takes no target" : "' needs a target in parentheses"));
      Fail(line_number, "unknown operation '" + std::string(op_name) + "'");
    }

    // Split off the optional argument after the last comma, for operations that take one.
    std::string_view target = inside;
    std::string_view argument;
    bool has_argument = false;
    if (op->argument != StdArgument::kNone) {
      if (size_t comma = inside.rfind(','); comma != std::string_view::npos) {
        target = Trim(inside.substr(0, comma));
        argument = Trim(inside.substr(comma + 1));
        has_argument = true;
      }
    }

    Event e;
    e.thread = InternThread(thread_name);
    e.kind = op->kind;
    switch (op->argument) {
      case StdArgument::kNone:
        break;
      case StdArgument::kOptionalOrder:
        e.flags = static_cast<uint8_t>(MemoryOrder::kSeqCst);
        if (has_argument) {
          auto order = MemoryOrderFromName(argument);
          if (!order) Fail(line_number, "unknown memory order '" + std::string(argument) + "'");
          e.flags = static_cast<uint8_t>(*order);
        }
        break;
      case StdArgument::kOptionalTry:
        if (has_argument) {
          if (argument != "try")
            Fail(line_number, "expected 'try', got '" + std::string(argument) + "'");
          e.flags = kTryLockFlag;
        }
        break;
      case StdArgument::kOptionalTimeout:
        if (has_argument) {
          if (argument != "timeout")
            Fail(line_number, "expected 'timeout', got '" + std::string(argument) + "'");
          e.flags = kWaitTimedOutFlag;
        }
        break;
      case StdArgument::kRequiredCount: {
        auto count = has_argument ? ParseDecimal(argument) : std::nullopt;
        if (!count || *count > UINT32_MAX)
          Fail(line_number, "operation '" + lower + "' needs a count: " + lower + "(NAME,N)");
        e.size = static_cast<uint32_t>(*count);
        break;
      }
    }

    switch (op->space) {
      case StdNamespace::kNone:
        if (op->kind == EventKind::kFence) {
          e.flags = static_cast<uint8_t>(MemoryOrder::kSeqCst);
          if (has_parentheses) {
            auto order = MemoryOrderFromName(target);
            if (!order) Fail(line_number, "unknown memory order '" + std::string(target) + "'");
            e.flags = static_cast<uint8_t>(*order);
          }
        }
        break;
      case StdNamespace::kThread: {
        if (target.empty()) Fail(line_number, "operation '" + lower + "' needs a thread name");
        uint32_t child = InternThread(target);
        if (op->kind == EventKind::kFork && !thread_parent_[child] && child != e.thread) {
          thread_parent_[child] = e.thread;
          thread_ordinal_[child] = children_[e.thread]++;
        }
        e.addr = child;
        break;
      }
      case StdNamespace::kRegion:
      case StdNamespace::kHbKey:
      case StdNamespace::kFunction:
        // These keys are optional: an empty target means key 0 ("no key").
        if (!target.empty()) e.addr = 1 + Names(op->space).Intern(target, kStdVariableBytes);
        break;
      default: {
        if (target.empty()) Fail(line_number, "operation '" + lower + "' needs a target name");
        uint64_t bytes = kStdVariableBytes;
        if (op->kind == EventKind::kAlloc || op->kind == EventKind::kFree)
          bytes = std::max<uint64_t>(bytes, e.size);
        e.addr = 1 + Names(op->space).Intern(target, bytes);
        break;
      }
    }
    if (IsAccess(op->kind)) e.size = kStdVariableBytes;
    e.site = InternSite(location, line_number);
    trace_.push_back(e);
    trace_.source_line.push_back(
        static_cast<uint32_t>(std::min<uint64_t>(line_number, UINT32_MAX)));
  }

  NameTable& Names(StdNamespace space) { return names_[static_cast<size_t>(space)]; }

  // Threads named exactly T0..T<n-1> keep their numbers; otherwise ids follow first appearance.
  void AssignThreadIds() {
    size_t n = thread_names_.size();
    std::vector<ThreadId> id_of(n);
    std::vector<bool> seen(n, false);
    bool keep_numbers = true;
    for (size_t i = 0; i < n && keep_numbers; ++i) {
      const std::string& name = thread_names_[i];
      auto number = name.size() > 1 && name[0] == 'T'
                        ? ParseDecimal(std::string_view(name).substr(1))
                        : std::nullopt;
      if (!number || *number >= n || seen[*number] || std::to_string(*number) != name.substr(1)) {
        keep_numbers = false;
        break;
      }
      seen[*number] = true;
      id_of[i] = static_cast<ThreadId>(*number);
    }
    if (!keep_numbers)
      for (size_t i = 0; i < n; ++i) id_of[i] = static_cast<ThreadId>(i);

    trace_.threads.assign(n, ThreadInfo{});
    for (size_t i = 0; i < n; ++i) {
      ThreadInfo& info = trace_.threads[id_of[i]];
      info.name = thread_names_[i];
      if (thread_parent_[i]) info.parent = id_of[*thread_parent_[i]];
      info.ordinal = thread_ordinal_[i];
    }
    for (size_t e = 0; e < trace_.size_events(); ++e) {
      trace_.thread[e] = id_of[trace_.thread[e]];
      if (trace_.kind[e] == EventKind::kFork || trace_.kind[e] == EventKind::kJoin)
        trace_.addr[e] = id_of[trace_.addr[e]];
    }
  }

  // Lays each namespace's names out in its own range, in order of first appearance.
  void AssignAddresses() {
    std::array<std::vector<uint64_t>, kNamespaceCount> address_of;
    for (size_t s = 0; s < kNamespaceCount; ++s) {
      auto space = static_cast<StdNamespace>(s);
      if (space == StdNamespace::kNone || space == StdNamespace::kThread) continue;
      const NameTable& table = names_[s];
      uint64_t next = StdNamespaceBase(space);
      for (size_t i = 0; i < table.names.size(); ++i) {
        uint64_t bytes = (table.footprint[i] + 7) & ~uint64_t{7};
        if (next + bytes - StdNamespaceBase(space) > kStdNamespaceSpan)
          throw PecanError(source_ +
                           ": the names of one kind need more than 4 GiB of synthetic addresses");
        address_of[s].push_back(next);
        trace_.names.push_back(AddressName{next, table.footprint[i], table.names[i]});
        next += bytes;
      }
    }
    for (const auto& [offset, label] : label_of_offset_)
      trace_.names.push_back(AddressName{offset, 0, label});

    for (size_t e = 0; e < trace_.size_events(); ++e) {
      const StdOperation* op = StdOperationForKind(trace_.kind[e]);
      auto s = static_cast<size_t>(op->space);
      if (op->space == StdNamespace::kNone || op->space == StdNamespace::kThread) continue;
      if (trace_.addr[e] != 0) trace_.addr[e] = address_of[s][trace_.addr[e] - 1];
    }
  }

  const std::string& source_;
  Trace trace_;
  std::unordered_map<std::string, uint32_t> thread_index_;
  std::vector<std::string> thread_names_;
  std::vector<std::optional<uint32_t>> thread_parent_;
  std::vector<uint32_t> thread_ordinal_;
  std::vector<uint32_t> children_;
  std::array<NameTable, kNamespaceCount> names_;
  std::unordered_map<uint64_t, SiteId> site_of_offset_;
  std::map<uint64_t, std::string> label_of_offset_;
};

}  // namespace

Trace ImportStd(std::istream& in, const std::string& source) {
  return StdImporter(source).Run(in);
}

Trace ImportStdFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw PecanError(path + ": cannot open for reading");
  return ImportStd(in, path);
}

}  // namespace pecan
