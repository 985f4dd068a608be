// Gathers what the reports print about each finding's events (see report_events.h).
#include "analyzer/report_events.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <unordered_map>

#include "analyzer/lockset_table.h"
#include "trace_format/error.h"

namespace pecan {
namespace {

// STD sites whose location was a label ("main.c:10") have this bit set in their offset; the
// label itself sits in the name table at that address (trace_format/STD_FORMAT.md).
constexpr uint64_t kStdLabelBit = uint64_t{1} << 63;

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// "dir/a.c:17" -> file "dir/a.c", line 17; false when the label has no such shape.
bool ParseFileLine(const std::string& label, SourceLocation& out) {
  size_t colon = label.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == label.size()) return false;
  uint32_t line = 0;
  const char* first = label.data() + colon + 1;
  const char* last = label.data() + label.size();
  auto [end, error] = std::from_chars(first, last, line);
  if (error != std::errc() || end != last || line == 0) return false;
  out.file = label.substr(0, colon);
  out.line = line;
  return true;
}

class FindingDescriber {
 public:
  FindingDescriber(const Trace& trace, Symbolizer& symbolizer)
      : trace_(trace), symbolizer_(symbolizer), locksets_(trace) {
    for (const AddressName& name : trace.names)
      if (name.address & kStdLabelBit) labels_.emplace(name.address, name.name);
  }

  ReportEvent Describe(EventIndex index) {
    if (index >= trace_.size_events())
      throw PecanError("report: finding names event " + std::to_string(index) +
                       " but the trace has " + std::to_string(trace_.size_events()) + " events");
    ReportEvent event;
    event.index = trace_.Origin(index);  // the recorded trace's number (a reduced trace: origin)
    event.thread = trace_.thread[index];
    event.thread_name = ThreadLabel(trace_, event.thread);
    event.kind = trace_.kind[index];
    event.address = trace_.addr[index];
    event.size = trace_.size[index];
    if (auto name = symbolizer_.NameOfEventAddress(index)) {
      event.variable = *name;
      event.variable_known = true;
    } else {
      event.variable = Hex(event.address);
    }
    event.site = Site(trace_.site[index]);
    if (index < trace_.source_line.size()) event.trace_line = trace_.source_line[index];
    for (const HeldLock& held : locksets_.Locks(locksets_.Of(index))) {
      auto name = symbolizer_.NameOfAddress(held.lock);
      event.locks_held.push_back(
          ReportLock{held.lock, name ? *name : Hex(held.lock), held.read_mode});
    }
    return event;
  }

 private:
  ReportSite Site(SiteId id) {
    auto cached = sites_.find(id);
    if (cached != sites_.end()) return cached->second;
    ReportSite site;
    site.id = id;
    site.key = id;
    if (id < trace_.sites.size() && trace_.sites[id].module == kNoModule) {
      uint64_t offset = trace_.sites[id].offset;
      site.is_std = true;
      auto label = labels_.find(offset);
      if ((offset & kStdLabelBit) && label != labels_.end()) {
        site.key = offset;
        site.text = label->second;
        ParseFileLine(label->second, site.source);
      } else {
        site.key = offset;
        site.text = "loc " + std::to_string(offset);
      }
    } else {
      site.source = symbolizer_.Resolve(id);
      site.text = symbolizer_.Describe(id);
    }
    site.where = !site.source.file.empty() && site.source.line != 0
                     ? site.source.file + ":" + std::to_string(site.source.line)
                     : site.text;
    sites_.emplace(id, site);
    return site;
  }

  const Trace& trace_;
  Symbolizer& symbolizer_;
  LocksetTable locksets_;
  std::unordered_map<uint64_t, std::string> labels_;
  std::unordered_map<SiteId, ReportSite> sites_;
};

}  // namespace

std::vector<ReportFinding> DescribeFindings(const Trace& trace, const AnalysisResult& result,
                                            Symbolizer& symbolizer) {
  std::vector<ReportFinding> out;
  if (result.findings.empty()) return out;  // spares building the lockset table
  FindingDescriber describer(trace, symbolizer);
  for (const Finding& finding : result.findings) {
    ReportFinding described;
    described.finding = &finding;
    for (EventIndex index : finding.events) {
      described.events.push_back(describer.Describe(index));
      const std::string& variable = described.events.back().variable;
      if (std::find(described.variables.begin(), described.variables.end(), variable) ==
          described.variables.end())
        described.variables.push_back(variable);
    }
    for (EventIndex index : finding.overtaken)
      described.overtaken.push_back(describer.Describe(index));
    out.push_back(std::move(described));
  }
  return out;
}

ReportSummary Summarize(const AnalysisResult& result) {
  ReportSummary summary;
  for (const Finding& finding : result.findings) {
    ++summary.findings;
    if (finding.pattern == "race")
      ++summary.races;
    else if (finding.pattern == "atomicity")
      ++summary.atomicity;
    else if (finding.pattern == "asv")
      ++summary.asv;
    else if (finding.pattern == "deadlock")
      ++summary.deadlocks;
    else
      ++summary.other;
    ++(finding.observed ? summary.observed : summary.predicted);
  }
  summary.suppressed = result.stats.suppressed;
  summary.stopped = result.stats.stopped_patterns.size();
  return summary;
}

std::string SummaryLine(const ReportSummary& s) {
  auto plural = [](uint64_t n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string line = plural(s.findings, "finding", "findings") + ": " +
                     plural(s.races, "race", "races") + ", " + std::to_string(s.atomicity) +
                     " atomicity, " + std::to_string(s.asv) + " asv";
  if (s.deadlocks) line += ", " + plural(s.deadlocks, "deadlock", "deadlocks");
  if (s.other) line += ", " + std::to_string(s.other) + " other";
  line += "; " + std::to_string(s.observed) + " observed, " + std::to_string(s.predicted) +
          " predicted";
  if (s.suppressed) line += "; " + std::to_string(s.suppressed) + " suppressed";
  if (s.stopped)
    line += "; " + plural(s.stopped, "pattern", "patterns") +
            " stopped by the work bound (findings may be incomplete)";
  return line;
}

std::vector<std::string> StoppedPatternNotices(const AnalysisStats& stats) {
  std::vector<std::string> out;
  for (const std::string& pattern : stats.stopped_patterns) {
    out.push_back("pattern '" + pattern + "': search stopped after " +
                  std::to_string(stats.pattern_work_bound) +
                  " steps (work bound, --max-pattern-work); its findings may be incomplete");
  }
  return out;
}

std::string ThreadLabel(const Trace& trace, ThreadId thread) {
  if (thread < trace.threads.size() && !trace.threads[thread].name.empty())
    return trace.threads[thread].name;
  return "T" + std::to_string(thread);
}

std::string AccessNoun(EventKind kind) {
  switch (kind) {
    case EventKind::kRead:
      return "read";
    case EventKind::kWrite:
      return "write";
    case EventKind::kAtomicLoad:
      return "atomic load";
    case EventKind::kAtomicStore:
      return "atomic store";
    case EventKind::kAtomicRmw:
      return "atomic read-modify-write";
    default:
      return std::string(EventKindName(kind));
  }
}

std::string AccessVerb(EventKind kind) {
  switch (kind) {
    case EventKind::kRead:
      return "reads";
    case EventKind::kWrite:
      return "writes";
    case EventKind::kAtomicLoad:
      return "atomically loads";
    case EventKind::kAtomicStore:
      return "atomically stores";
    case EventKind::kAtomicRmw:
      return "atomically updates";
    case EventKind::kFree:
      return "frees";
    case EventKind::kLock:
      return "locks";
    case EventKind::kReadLock:
      return "read-locks";
    default:
      return "runs " + std::string(EventKindName(kind)) + " on";
  }
}

std::string PatternTitle(const std::string& pattern) {
  if (pattern == "race") return "data race";
  if (pattern == "atomicity") return "atomicity violation";
  if (pattern == "asv") return "atomic-set serializability violation";
  if (pattern == "deadlock") return "lock-order deadlock";
  return "'" + pattern + "' pattern";
}

std::string DeadlockCycleText(const ReportFinding& described) {
  std::string text;
  for (size_t i = 0; i + 1 < described.events.size(); i += 2) {
    const ReportEvent& held = described.events[i];
    const ReportEvent& request = described.events[i + 1];
    if (i) text += ", ";
    text += held.thread_name + " holds '" + held.variable + "' (" + held.site.where +
            ") and requests '" + request.variable + "' (" + request.site.where + ")";
  }
  return text;
}

std::string LocksText(const std::vector<ReportLock>& locks) {
  if (locks.empty()) return "no lock";
  std::string text = "{";
  for (size_t i = 0; i < locks.size(); ++i) {
    if (i) text += ", ";
    text += locks[i].name;
    if (locks[i].read_mode) text += " (read)";
  }
  return text + "}";
}

}  // namespace pecan
