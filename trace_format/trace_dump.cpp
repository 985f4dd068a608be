// `pecan dump` output for traces: aligned text lines, STD, or JSON lines; plus the registries
// through which clips and the symbolizer extend the command.
#include "trace_format/trace_dump.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "trace_format/address_name_index.h"
#include "trace_format/blocked_threads_text.h"
#include "trace_format/std_format.h"

namespace pecan {
namespace {

std::string Hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string ThreadText(const Trace& tables, uint64_t id) {
  std::string text = "T" + std::to_string(id);
  if (id < tables.threads.size()) {
    const std::string& name = tables.threads[id].name;
    if (!name.empty() && name != text) text += "(" + name + ")";
  }
  return text;
}

// The text dump's thread column: wide enough for every thread's "T3(name)", so the columns
// after it line up.
size_t ThreadColumnWidth(const Trace& tables) {
  size_t width = 6;
  for (size_t t = 0; t < tables.threads.size(); ++t)
    width = std::max(width, ThreadText(tables, t).size());
  return width;
}

// The name of an address: from the symbols' namer when there is one, else from the trace's
// name table.
class Namer {
 public:
  // `symbolic` may be null or empty.
  Namer(const AddressNameIndex& table, const AddressNamer* symbolic)
      : table_(table), symbolic_(symbolic != nullptr && *symbolic ? symbolic : nullptr) {}
  bool AppendName(std::string& out, uint64_t address) const {
    if (symbolic_ == nullptr) return table_.AppendName(out, address);
    std::optional<std::string> name = (*symbolic_)(address);
    if (name) out += *name;
    return name.has_value();
  }

 private:
  const AddressNameIndex& table_;
  const AddressNamer* symbolic_;
};

std::string AddressText(const Namer& names, uint64_t address) {
  std::string text = Hex(address);
  std::string name;
  if (names.AppendName(name, address)) text += " (" + name + ")";
  return text;
}

// The kind-specific part of an event line: its target and decoded size and flags.
std::string TargetText(const Trace& tables, const Namer& names, const Event& e) {
  auto order = [&e] { return std::string(MemoryOrderName(static_cast<MemoryOrder>(e.flags))); };
  switch (e.kind) {
    case EventKind::kRead:
    case EventKind::kWrite:
      return AddressText(names, e.addr) + " size " + std::to_string(e.size);
    case EventKind::kAtomicLoad:
    case EventKind::kAtomicStore:
    case EventKind::kAtomicRmw:
      return AddressText(names, e.addr) + " size " + std::to_string(e.size) + " " + order();
    case EventKind::kFence:
      return order();
    case EventKind::kLock:
    case EventKind::kReadLock:
      return AddressText(names, e.addr) + ((e.flags & kTryLockFlag) ? " try" : "");
    case EventKind::kUnlock:
    case EventKind::kReadUnlock:
    case EventKind::kNotify:
    case EventKind::kNotifyAll:
    case EventKind::kSemPost:
    case EventKind::kSemWait:
      return AddressText(names, e.addr);
    case EventKind::kWait:
      return AddressText(names, e.addr) + ((e.flags & kWaitTimedOutFlag) ? " timed-out" : "");
    case EventKind::kFork:
    case EventKind::kJoin:
      return ThreadText(tables, e.addr);
    case EventKind::kBarrierArrive:
    case EventKind::kBarrierDepart:
      return AddressText(names, e.addr) + " participants " + std::to_string(e.size);
    case EventKind::kAlloc:
    case EventKind::kFree:
      return AddressText(names, e.addr) + " size " + std::to_string(e.size);
    case EventKind::kFuncEntry:
    case EventKind::kFuncExit:
    case EventKind::kRegionBegin:
    case EventKind::kRegionEnd:
    case EventKind::kHbRelease:
    case EventKind::kHbAcquire:
      return e.addr == 0 ? std::string() : AddressText(names, e.addr);
    case EventKind::kThreadBegin:
    case EventKind::kThreadEnd:
      return {};
    default:
      return "addr " + Hex(e.addr) + " size " + std::to_string(e.size) + " flags " + Hex(e.flags);
  }
}

std::string KindText(EventKind kind) {
  std::string_view name = EventKindName(kind);
  if (name == "invalid") return "kind" + std::to_string(static_cast<int>(kind));
  return std::string(name);
}

nlohmann::json MetaJson(const TraceMeta& meta) {
  return {{"type", "header"},
          {"format", std::to_string(meta.format_major) + "." + std::to_string(meta.format_minor)},
          {"producer", meta.producer},
          {"program", meta.program},
          {"args", meta.args},
          {"pid", meta.pid},
          {"start_unix_ns", meta.start_unix_ns},
          {"settings",
           {{"chunk_events", meta.settings.chunk_events},
            {"zstd_level", meta.settings.zstd_level},
            {"func_events", meta.settings.func_events},
            {"stack_accesses", meta.settings.stack_accesses},
            {"fork_policy", meta.settings.fork_policy},
            {"drop_repeats", meta.settings.drop_repeats}}}};
}

nlohmann::json TablesJson(const Trace& tables, bool complete, const SiteDescriber& describe) {
  nlohmann::json threads = nlohmann::json::array();
  for (size_t i = 0; i < tables.threads.size(); ++i) {
    const ThreadInfo& t = tables.threads[i];
    nlohmann::json j = {{"id", i}, {"ordinal", t.ordinal}, {"name", t.name}};
    j["parent"] = t.parent ? nlohmann::json(*t.parent) : nlohmann::json(nullptr);
    threads.push_back(std::move(j));
  }
  nlohmann::json sites = nlohmann::json::array();
  for (size_t i = 0; i < tables.sites.size(); ++i)
    sites.push_back({{"id", i},
                     {"module", tables.sites[i].module},
                     {"offset", Hex(tables.sites[i].offset)},
                     {"where", describe(static_cast<SiteId>(i))}});
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& m : tables.modules) {
    std::string build_id;
    for (unsigned char c : m.build_id) {
      char two[3];
      std::snprintf(two, sizeof two, "%02x", c);
      build_id += two;
    }
    modules.push_back({{"id", m.id},
                       {"path", m.path},
                       {"load_address", Hex(m.load_address)},
                       {"build_id", build_id}});
  }
  nlohmann::json names = nlohmann::json::array();
  for (const auto& n : tables.names)
    names.push_back({{"address", Hex(n.address)}, {"size", n.size}, {"name", n.name}});
  nlohmann::json blocked = nlohmann::json::array();
  for (const BlockedThreadInfo& b : tables.meta.blocked_threads) {
    nlohmann::json holders = nlohmann::json::array();
    for (const LockHolderInfo& h : b.holders)
      holders.push_back({{"thread", h.thread},
                         {"site", h.site},
                         {"where", describe(h.site)},
                         {"shared", h.shared}});
    nlohmann::json object = b.on == BlockedOn::kJoin
                                ? (b.object == kUnknownJoinedThread ? nlohmann::json(nullptr)
                                                                    : nlohmann::json(b.object))
                                : nlohmann::json(Hex(b.object));
    blocked.push_back({{"thread", b.thread},
                       {"on", BlockedOnName(b.on)},
                       {"object", object},
                       {"site", b.site},
                       {"where", describe(b.site)},
                       {"holders", holders}});
  }
  nlohmann::json exit = nullptr;
  if (tables.meta.exit.known)
    exit = {{"exited", tables.meta.exit.exited},
            {"exit_status", tables.meta.exit.exit_status},
            {"signal", tables.meta.exit.signal}};
  return {{"type", "tables"},
          {"complete", complete},
          {"threads", threads},
          {"sites", sites},
          {"modules", modules},
          {"names", names},
          {"exit", exit},
          {"dropped_events", tables.meta.dropped_events},
          {"blocked_threads", blocked}};
}

void AppendEventText(std::string& out, const Trace& tables, const Namer& names, size_t thread_width,
                     const Event& e, EventIndex index, const SiteDescriber& describe) {
  char head[32];
  std::snprintf(head, sizeof head, "%10llu  ", static_cast<unsigned long long>(index));
  out += head;
  std::string thread = ThreadText(tables, e.thread);
  thread.resize(std::max(thread.size(), thread_width), ' ');
  std::string kind = KindText(e.kind);
  kind.resize(std::max<size_t>(kind.size(), 14), ' ');
  std::string target = TargetText(tables, names, e);
  target.resize(std::max<size_t>(target.size(), 34), ' ');
  out += thread + " " + kind + " " + target + " @ " + describe(e.site);
  if (e.repeats_before != 0) {
    out += "  (after " + std::to_string(e.repeats_before) + " repeat" +
           (e.repeats_before == 1 ? "" : "s") + " left out)";
  }
}

std::string EventJson(const Namer& names, const Event& e, EventIndex index,
                      const SiteDescriber& describe) {
  nlohmann::json j = {
      {"type", "event"},          {"index", index},      {"thread", e.thread},
      {"kind", KindText(e.kind)}, {"addr", Hex(e.addr)}, {"size", e.size},
      {"flags", e.flags},         {"site", e.site},      {"where", describe(e.site)}};
  std::string name;
  if (names.AppendName(name, e.addr)) j["name"] = name;
  if (IsAtomicAccess(e.kind) || e.kind == EventKind::kFence)
    j["order"] = MemoryOrderName(static_cast<MemoryOrder>(e.flags));
  if (e.repeats_before != 0) j["repeats_before"] = e.repeats_before;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<FileDumper>& DumperRegistry() {
  static std::vector<FileDumper> registry;
  return registry;
}

}  // namespace

std::string DescribeSiteRaw(const std::vector<SiteInfo>& sites,
                            const std::vector<ModuleInfo>& modules, SiteId site) {
  if (site >= sites.size()) return "site " + std::to_string(site);
  const SiteInfo& s = sites[site];
  if (s.module == kNoModule) return "loc " + std::to_string(s.offset);
  for (const auto& m : modules) {
    if (m.id != s.module) continue;
    size_t slash = m.path.rfind('/');
    return (slash == std::string::npos ? m.path : m.path.substr(slash + 1)) + "+" + Hex(s.offset);
  }
  return "module" + std::to_string(s.module) + "+" + Hex(s.offset);
}

std::string FormatEventText(const Trace& tables, const Event& e, EventIndex index,
                            const SiteDescriber& describe) {
  std::string line;
  const AddressNameIndex table(tables.names);
  AppendEventText(line, tables, Namer(table, nullptr), ThreadColumnWidth(tables), e, index,
                  describe);
  return line;
}

std::string FormatEventJson(const Trace& tables, const Event& e, EventIndex index,
                            const SiteDescriber& describe) {
  const AddressNameIndex table(tables.names);
  return EventJson(Namer(table, nullptr), e, index, describe);
}

namespace {

using EventVisitor = std::function<void(const Event&, EventIndex)>;

// Prints every event that `for_each_event` produces, framed as the format wants; `tables`
// (a Trace without events) must already be complete.
void DumpEvents(const Trace& tables, bool complete,
                const std::function<void(const EventVisitor&)>& for_each_event, std::ostream& out,
                const TraceDumpOptions& options) {
  DumpSymbols symbols;
  if (options.symbols) symbols = options.symbols(tables);
  SiteDescriber describe = std::move(symbols.describe_site);
  if (!describe)
    describe = [&tables](SiteId s) { return DescribeSiteRaw(tables.sites, tables.modules, s); };

  std::unique_ptr<StdExporter> std_exporter;
  if (options.format == DumpFormat::kStd)
    std_exporter = std::make_unique<StdExporter>(tables.threads, tables.sites, tables.names,
                                                 StdExportOptions{options.strict_std});
  const AddressNameIndex name_table(tables.names);
  const Namer names(name_table, &symbols.name_address);
  const size_t thread_width = ThreadColumnWidth(tables);
  std::string buffer;
  auto flush = [&] {
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
  };

  if (options.format == DumpFormat::kText) {
    const TraceMeta& m = tables.meta;
    buffer += "# pecan trace, format " + std::to_string(m.format_major) + "." +
              std::to_string(m.format_minor) + ", written by " +
              (m.producer.empty() ? std::string("?") : m.producer) + "\n";
    if (!m.program.empty()) {
      buffer += "# program: " + m.program;
      for (const auto& a : m.args) buffer += " " + a;
      buffer += "\n";
    }
    buffer += "# " + std::to_string(tables.threads.size()) + " threads, " +
              std::to_string(tables.sites.size()) + " sites\n";
    std::string thread_heading = "thread";
    thread_heading.resize(thread_width, ' ');
    buffer += "#    event  " + thread_heading +
              " kind           target                             @ site\n";
  } else if (options.format == DumpFormat::kJson) {
    buffer +=
        MetaJson(tables.meta).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }

  for_each_event([&](const Event& e, EventIndex index) {
    switch (options.format) {
      case DumpFormat::kStd:
        std_exporter->AppendLine(e, index, buffer);
        break;
      case DumpFormat::kText:
        AppendEventText(buffer, tables, names, thread_width, e, index, describe);
        buffer += '\n';
        break;
      case DumpFormat::kJson:
        buffer += EventJson(names, e, index, describe) + "\n";
        break;
    }
    if (buffer.size() >= (1 << 16)) flush();
  });
  if (options.format == DumpFormat::kText && !tables.meta.blocked_threads.empty()) {
    buffer += "# deadlock (every thread was blocked; the recorder ended the run): " +
              DescribeBlockedThreads(tables, describe, symbols.name_address) + "\n";
  }
  if (options.format == DumpFormat::kJson)
    buffer += TablesJson(tables, complete, describe)
                  .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
              "\n";
  flush();
}

Trace TablesOf(const Trace& trace) {
  Trace tables;
  tables.meta = trace.meta;
  tables.threads = trace.threads;
  tables.sites = trace.sites;
  tables.modules = trace.modules;
  tables.names = trace.names;
  return tables;
}

void DumpWholeTrace(const Trace& trace, bool complete, std::ostream& out,
                    const TraceDumpOptions& options) {
  DumpEvents(
      TablesOf(trace), complete,
      [&trace](const EventVisitor& emit) {
        for (EventIndex i = 0; i < trace.size_events(); ++i) emit(trace.event(i), i);
      },
      out, options);
}

}  // namespace

void DumpTrace(TraceReader& reader, std::ostream& out, const TraceDumpOptions& options) {
  Trace tables;
  tables.meta = reader.meta();
  tables.threads = reader.threads();
  tables.sites = reader.sites();
  tables.modules = reader.modules();
  tables.names = reader.names();
  if (!reader.complete()) {
    // The tables must be complete before the first line; an unfinished file brings them
    // chunk by chunk, so it is read whole first (a finished one has them in its footer).
    EventBatch batch;
    while (reader.Next(batch))
      for (size_t i = 0; i < batch.count(); ++i) tables.push_back(batch.event(i));
    tables.meta = reader.meta();
    tables.threads = reader.threads();
    tables.sites = reader.sites();
    tables.modules = reader.modules();
    tables.names = reader.names();
    DumpWholeTrace(tables, false, out, options);
    return;
  }
  DumpEvents(
      tables, true,
      [&reader](const EventVisitor& emit) {
        EventBatch batch;
        while (reader.Next(batch))
          for (size_t i = 0; i < batch.count(); ++i) emit(batch.event(i), batch.first_event + i);
      },
      out, options);
}

void DumpTrace(const Trace& trace, std::ostream& out, const TraceDumpOptions& options) {
  DumpWholeTrace(trace, true, out, options);
}

void RegisterFileDumper(FileDumper dumper) {
  DumperRegistry().push_back(std::move(dumper));
}
const std::vector<FileDumper>& FileDumpers() {
  return DumperRegistry();
}

}  // namespace pecan
