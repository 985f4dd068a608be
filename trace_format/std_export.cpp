// STD text export: writes a Trace as THREAD|OP(TARGET)|LOCATION lines, using the names kept by
// the import (or synthesized ones for recorded traces); strict mode keeps only plain STD.
#include <algorithm>
#include <charconv>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace_format/address_name_index.h"
#include "trace_format/std_format.h"
#include "trace_format/std_vocabulary.h"

namespace pecan {
namespace {

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

// Names an address for STD: its name from the trace, else the namespace's letter and hex.
class NameLookup {
 public:
  explicit NameLookup(const std::vector<AddressName>& names) : index_(names) {}

  void AppendName(std::string& out, uint64_t address, StdNamespace space) const {
    if (index_.AppendName(out, address)) return;
    if (address == 0 && (space == StdNamespace::kRegion || space == StdNamespace::kHbKey ||
                         space == StdNamespace::kFunction))
      return;  // no key
    out += StdNamespaceLetter(space);
    AppendHex(out, address);
  }

  const std::string* Label(uint64_t offset) const { return index_.SiteLabel(offset); }

 private:
  AddressNameIndex index_;
};

void AppendThread(std::string& out, const std::vector<ThreadInfo>& threads, uint64_t id) {
  if (id < threads.size() && !threads[id].name.empty()) {
    out += threads[id].name;
  } else {
    out += 'T';
    AppendDecimal(out, id);
  }
}

void AppendLocation(std::string& out, const std::vector<SiteInfo>& sites, const NameLookup& names,
                    SiteId site) {
  if (site < sites.size() && sites[site].module == kNoModule) {
    uint64_t offset = sites[site].offset;
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

struct StdExporter::Impl {
  const std::vector<ThreadInfo>& threads;
  const std::vector<SiteInfo>& sites;
  NameLookup names;
  StdExportOptions options;
};

StdExporter::StdExporter(const std::vector<ThreadInfo>& threads, const std::vector<SiteInfo>& sites,
                         const std::vector<AddressName>& names, const StdExportOptions& options)
    : impl_(new Impl{threads, sites, NameLookup(names), options}) {}

StdExporter::~StdExporter() = default;

void StdExporter::AppendLine(const Event& e, EventIndex index, std::string& buffer) const {
  const Impl& x = *impl_;
  const StdOperation* op = StdOperationForKind(e.kind);
  if (!op || (x.options.strict && !op->plain)) {
    if (!op && !x.options.strict) {
      buffer += "# event ";
      AppendDecimal(buffer, index);
      buffer += " has kind ";
      buffer += EventKindName(e.kind);
      buffer += ", which STD cannot express\n";
    }
    return;
  }
  AppendThread(buffer, x.threads, e.thread);
  buffer += '|';
  buffer += op->name;
  if (op->has_parentheses) {
    buffer += '(';
    if (op->space == StdNamespace::kThread) {
      AppendThread(buffer, x.threads, e.addr);
    } else if (op->kind == EventKind::kFence) {
      buffer += MemoryOrderName(static_cast<MemoryOrder>(e.flags));
    } else {
      x.names.AppendName(buffer, e.addr, op->space);
    }
    if (!x.options.strict) {
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
  AppendLocation(buffer, x.sites, x.names, e.site);
  buffer += '\n';
}

void ExportStd(const Trace& trace, std::ostream& out, const StdExportOptions& options) {
  StdExporter exporter(trace.threads, trace.sites, trace.names, options);
  std::string buffer;
  buffer.reserve(1 << 17);
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    exporter.AppendLine(trace.event(i), i, buffer);
    if (buffer.size() >= (1 << 16)) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace pecan
