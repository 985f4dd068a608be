// Compiler-style text report (see report_text.h).
#include "analyzer/report_text.h"

#include <ostream>

#include "analyzer/report_events.h"

namespace pecan {
namespace {

std::string Quoted(const std::string& name) {
  return "'" + name + "'";
}

std::string Headline(const ReportFinding& described) {
  const Finding& finding = *described.finding;
  std::string variables;
  for (size_t i = 0; i < described.variables.size(); ++i) {
    if (i) variables += i + 1 == described.variables.size() ? " and " : ", ";
    variables += Quoted(described.variables[i]);
  }
  // A race reads "write by T1 / read by T2", longer patterns list their events in order.
  std::string separator = described.events.size() == 2 ? " / " : ", ";
  std::string who;
  for (size_t i = 0; i < described.events.size(); ++i) {
    const ReportEvent& event = described.events[i];
    if (i) who += separator;
    who += AccessNoun(event.kind) + " by " + event.thread_name;
  }
  std::string tag = finding.pattern + (finding.variant.empty() ? "" : " " + finding.variant);
  if (finding.pattern == "deadlock")
    return PatternTitle(finding.pattern) + " on " + variables + ": " +
           DeadlockCycleText(described) + " [" + tag + "]";
  return PatternTitle(finding.pattern) + " on " + variables + " (" + who + ") [" + tag + "]";
}

}  // namespace

void WriteTextReport(std::ostream& out, const Trace& trace, const AnalysisResult& result,
                     Symbolizer& symbolizer) {
  for (const ReportFinding& described : DescribeFindings(trace, result, symbolizer)) {
    const Finding& finding = *described.finding;
    std::string where = described.events.empty() ? "pecan" : described.events.front().site.where;
    out << where << ": warning: " << Headline(described) << "\n";
    for (const ReportEvent& event : described.events) {
      out << event.site.where << ": note: " << event.thread_name << " " << AccessVerb(event.kind)
          << " " << Quoted(event.variable) << " here (event " << event.index << "), holding "
          << LocksText(event.locks_held) << "\n";
    }
    for (const ReportEvent& event : described.overtaken) {
      out << event.site.where << ": note: reordered around " << event.thread_name << "'s "
          << AccessNoun(event.kind) << " of " << Quoted(event.variable) << " here (event "
          << event.index << ")\n";
    }
    out << where << ": note: "
        << (finding.observed ? "observed in the recorded order"
                             : "predicted (not in the recorded order)");
    if (!finding.reason.empty()) out << ": " << finding.reason;
    if (finding.witnesses > 1) out << " (" << finding.witnesses << " similar matches)";
    out << "\n";
  }
  for (const std::string& notice : StoppedPatternNotices(result.stats))
    out << "pecan: note: " << notice << "\n";
  out << SummaryLine(Summarize(result)) << "\n";
}

}  // namespace pecan
