// STD text export: writes a Trace as THREAD|OP(TARGET)|LOCATION lines, using the names kept by
// the import (or synthesized ones for recorded traces); strict mode keeps only plain STD.
#include <algorithm>
#include <charconv>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace_format/std_format.h"
#include "trace_format/std_vocabulary.h"

namespace pecan {
namespace {

char NamespacePrefix(StdNamespace space) {
  switch (space) {
    case StdNamespace::kMemory:
      return 'V';
    case StdNamespace::kLock:
      return 'L';
    case StdNamespace::kCondition:
      return 'C';
    case StdNamespace::kBarrier:
      return 'B';
    case StdNamespace::kSemaphore:
      return 'S';
    case StdNamespace::kRegion:
      return 'R';
    case StdNamespace::kHbKey:
      return 'K';
    case StdNamespace::kFunction:
      return 'F';
    default:
      return 'X';
  }
}

void AppendHex(std::string& out, uint64_t value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, 16);
  out += "0x";
  out.append(buffer, end);
}

void AppendDecimal(std::string& out, uint64_t value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, end);
}

// Finds the name of an address: exact, or "name+offset" inside a named block.
class NameLookup {
 public:
  explicit NameLookup(const Trace& trace) {
    for (const auto& n : trace.names) {
      if (n.size == 0 && (n.address & kStdLabelSiteBit)) {
        labels_.emplace(n.address, &n.name);
      } else {
        exact_.emplace(n.address, &n.name);
        ranges_.push_back(&n);
      }
    }
    std::sort(ranges_.begin(), ranges_.end(),
              [](const AddressName* a, const AddressName* b) { return a->address < b->address; });
  }

  void AppendName(std::string& out, uint64_t address, StdNamespace space) const {
    if (auto it = exact_.find(address); it != exact_.end()) {
      out += *it->second;
      return;
    }
    auto upper = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                                  [](uint64_t a, const AddressName* n) { return a < n->address; });
    if (upper != ranges_.begin()) {
      const AddressName* n = *(upper - 1);
      if (address - n->address < n->size) {
        out += n->name;
        out += '+';
        AppendDecimal(out, address - n->address);
        return;
      }
    }
    if (address == 0 && (space == StdNamespace::kRegion || space == StdNamespace::kHbKey ||
                         space == StdNamespace::kFunction))
      return;  // no key
    out += NamespacePrefix(space);
    AppendHex(out, address);
  }

  const std::string* Label(uint64_t offset) const {
    auto it = labels_.find(offset);
    return it == labels_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<uint64_t, const std::string*> exact_;
  std::unordered_map<uint64_t, const std::string*> labels_;
  std::vector<const AddressName*> ranges_;
};

void AppendThread(std::string& out, const Trace& trace, uint64_t id) {
  if (id < trace.threads.size() && !trace.threads[id].name.empty()) {
    out += trace.threads[id].name;
  } else {
    out += 'T';
    AppendDecimal(out, id);
  }
}

void AppendLocation(std::string& out, const Trace& trace, const NameLookup& names, SiteId site) {
  if (site < trace.sites.size() && trace.sites[site].module == kNoModule) {
    uint64_t offset = trace.sites[site].offset;
    if (const std::string* label = names.Label(offset)) {
      out += *label;
    } else {
      AppendDecimal(out, offset);
    }
    return;
  }
  // A recorded site (module + offset) has no STD spelling; its dense id keeps sites distinct.
  AppendDecimal(out, site);
}

}  // namespace

void ExportStd(const Trace& trace, std::ostream& out, const StdExportOptions& options) {
  NameLookup names(trace);
  std::string buffer;
  buffer.reserve(1 << 16);
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    Event e = trace.event(i);
    const StdOperation* op = StdOperationForKind(e.kind);
    if (!op || (options.strict && !op->plain)) {
      if (!op && !options.strict) {
        buffer += "# event ";
        AppendDecimal(buffer, i);
        buffer += " has kind ";
        buffer += EventKindName(e.kind);
        buffer += ", which STD cannot express\n";
      }
      continue;
    }
    AppendThread(buffer, trace, e.thread);
    buffer += '|';
    buffer += op->name;
    if (op->has_parentheses) {
      buffer += '(';
      if (op->space == StdNamespace::kThread) {
        AppendThread(buffer, trace, e.addr);
      } else if (op->kind == EventKind::kFence) {
        buffer += MemoryOrderName(static_cast<MemoryOrder>(e.flags));
      } else {
        names.AppendName(buffer, e.addr, op->space);
      }
      if (!options.strict) {
        switch (op->argument) {
          case StdArgument::kNone:
            break;
          case StdArgument::kOptionalOrder:
            if (e.flags != static_cast<uint8_t>(MemoryOrder::kSeqCst)) {
              buffer += ',';
              buffer += MemoryOrderName(static_cast<MemoryOrder>(e.flags));
            }
            break;
          case StdArgument::kOptionalTry:
            if (e.flags & kTryLockFlag) buffer += ",try";
            break;
          case StdArgument::kOptionalTimeout:
            if (e.flags & kWaitTimedOutFlag) buffer += ",timeout";
            break;
          case StdArgument::kRequiredCount:
            buffer += ',';
            AppendDecimal(buffer, e.size);
            break;
        }
      }
      buffer += ')';
    }
    buffer += '|';
    AppendLocation(buffer, trace, names, e.site);
    buffer += '\n';
    if (buffer.size() >= (1 << 16)) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace pecan
