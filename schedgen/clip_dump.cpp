// DumpClip: text, STD and JSON-lines views of a clip's schedule.
#include "schedgen/clip_dump.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "analyzer/symbolizer.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/event_kind.h"
#include "trace_format/std_vocabulary.h"

namespace pecan {
namespace {

std::string Hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string HexBytes(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// Everything a step line needs, decoded once from the clip's columns.
struct ClipView {
  const proto::Clip& clip;
  std::vector<uint32_t> step_thread;
  std::vector<bool> moved;
  std::vector<uint32_t> anomaly;  // 1-based position in the pattern, 0 for none
  std::map<uint32_t, std::string> thread_names;
  std::map<uint32_t, proto::Site> sites;
  std::map<uint32_t, std::string> modules;  // id -> file name
  // The clip's modules and sites for the symbolizer. Site ids are the trace's (sparse, and only
  // as trustworthy as the file), so the table is compact: symbol_site[id] is the row.
  Trace symbol_tables;
  std::map<uint32_t, SiteId> symbol_site;
  std::unique_ptr<Symbolizer> symbolizer;  // made on first use

  explicit ClipView(const proto::Clip& c) : clip(c) {
    for (int r = 0; r < clip.run_thread_size(); ++r) {
      step_thread.insert(step_thread.end(), clip.run_length(r), clip.run_thread(r));
    }
    const size_t steps = step_thread.size();
    moved.assign(steps, false);
    anomaly.assign(steps, 0);
    for (uint64_t s : clip.moved_steps()) {
      if (s < steps) moved[s] = true;
    }
    for (int k = 0; k < clip.anomaly_steps_size(); ++k) {
      if (clip.anomaly_steps(k) < steps)
        anomaly[clip.anomaly_steps(k)] = static_cast<uint32_t>(k + 1);
    }
    for (const auto& t : clip.threads()) thread_names[t.id()] = t.name();
    for (const auto& s : clip.sites()) sites[s.id()] = s;
    for (const auto& m : clip.modules()) {
      const std::string& path = m.path();
      modules[m.id()] =
          path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    }
  }

  size_t steps() const { return step_thread.size(); }

  std::string ThreadName(uint32_t t) const {
    auto it = thread_names.find(t);
    return it != thread_names.end() && !it->second.empty() ? it->second : "T" + std::to_string(t);
  }

  std::string SiteText(uint32_t site) const {
    auto it = sites.find(site);
    if (it == sites.end()) return "site " + std::to_string(site);
    const proto::Site& s = it->second;
    if (s.module() == 0) {
      return s.offset() & kStdLabelSiteBit ? "label " + Hex(s.offset())
                                           : "loc " + std::to_string(s.offset());
    }
    auto m = modules.find(s.module());
    return (m != modules.end() ? m->second : "module" + std::to_string(s.module())) + "+" +
           Hex(s.offset());
  }

  // "file.c:28 (function)" for a recorded site whose module can be read (debug info), else "".
  std::string SourceText(uint32_t site) {
    auto it = sites.find(site);
    if (it == sites.end() || it->second.module() == 0) return "";
    if (!symbolizer) {
      for (const auto& m : clip.modules())
        symbol_tables.modules.push_back(
            ModuleInfo{m.id(), m.path(), m.load_address(), m.build_id()});
      for (const auto& [id, info] : sites) {
        symbol_site[id] = static_cast<SiteId>(symbol_tables.sites.size());
        symbol_tables.sites.push_back(SiteInfo{info.module(), info.offset()});
      }
      symbolizer = std::make_unique<Symbolizer>(symbol_tables);
    }
    const SourceLocation where = symbolizer->Resolve(symbol_site.at(site));
    if (where.file.empty() || where.line == 0) return "";
    std::string text =
        where.file.substr(where.file.find_last_of('/') + 1) + ":" + std::to_string(where.line);
    if (!where.function.empty()) text += " (" + where.function + ")";
    return text;
  }

  // The STD location column: the STD location for module-less sites, else the site id.
  std::string StdLocation(uint32_t site) const {
    auto it = sites.find(site);
    if (it != sites.end() && it->second.module() == 0 &&
        !(it->second.offset() & kStdLabelSiteBit)) {
      return std::to_string(it->second.offset());
    }
    return std::to_string(site);
  }

  std::string AnomalyText(size_t step) const {
    return "anomaly " + std::to_string(anomaly[step]) + "/" +
           std::to_string(clip.anomaly_steps_size());
  }
};

EventKind KindOf(uint32_t raw) {
  return raw < static_cast<uint32_t>(kEventKindCount) ? static_cast<EventKind>(raw)
                                                      : EventKind::kUnspecified;
}

void DumpText(ClipView& view, std::ostream& out) {
  const proto::Clip& clip = view.clip;
  const proto::Finding& f = clip.finding();
  out << "pecan clip " << clip.format_major() << "." << clip.format_minor() << " for finding "
      << f.id() << " (" << f.pattern() << (f.variant().empty() ? "" : " " + f.variant()) << ", "
      << (f.observed() ? "observed" : "predicted") << ")\n";
  out << "  trace      " << (clip.trace_hash().empty() ? "(no hash)" : clip.trace_hash()) << "\n";
  out << "  program    " << clip.program();
  for (const auto& arg : clip.args()) out << " " << arg;
  out << "\n  generator  " << clip.generator() << "\n";
  out << "  steps      " << view.steps() << " in " << clip.run_thread_size() << " runs, "
      << clip.moved_steps_size() << " moved\n";
  // A deadlock's events are, per thread, the lock it holds and its request, which the clip
  // does not run: the replay blocks there.
  const bool deadlock = f.pattern() == "deadlock";
  for (int k = 0; k < f.events_size(); ++k) {
    const auto& e = f.events(k);
    std::string where;
    if (deadlock) {
      where = k % 2 == 0 ? "holds" : "requests (after the clip)";
    } else {
      where = "step " + (k < clip.anomaly_steps_size() ? std::to_string(clip.anomaly_steps(k))
                                                       : std::string("?"));
    }
    out << "  anomaly " << (k + 1) << "/" << f.events_size() << "  " << where << ": "
        << view.ThreadName(e.thread()) << " " << EventKindName(KindOf(e.kind())) << " "
        << Hex(e.address()) << " at " << view.SiteText(e.site());
    const std::string source = view.SourceText(e.site());
    if (!source.empty()) out << ", " << source;
    out << "\n";
  }
  if (!f.reason().empty()) out << "  why        " << f.reason() << "\n";
  char line[256];
  std::snprintf(line, sizeof(line), "%8s  %-8s %-15s %-24s %s\n", "step", "thread", "kind", "site",
                "event");
  out << line;
  for (size_t s = 0; s < view.steps(); ++s) {
    std::snprintf(line, sizeof(line), "%8zu  %-8s %-15s %-24s %llu", s,
                  view.ThreadName(view.step_thread[s]).c_str(),
                  std::string(EventKindName(KindOf(clip.step_kind(static_cast<int>(s))))).c_str(),
                  view.SiteText(clip.step_site(static_cast<int>(s))).c_str(),
                  static_cast<unsigned long long>(clip.step_origin(static_cast<int>(s))));
    out << line;
    if (view.moved[s]) out << "  moved";
    if (view.anomaly[s]) out << "  " << view.AnomalyText(s);
    // A thread's begin and end carry its start routine's address, not a call site.
    const EventKind kind = KindOf(clip.step_kind(static_cast<int>(s)));
    if (kind != EventKind::kThreadBegin && kind != EventKind::kThreadEnd) {
      const std::string source = view.SourceText(clip.step_site(static_cast<int>(s)));
      if (!source.empty()) out << "  " << source;
    }
    out << "\n";
  }
}

void DumpStd(const ClipView& view, bool strict, std::ostream& out) {
  const proto::Clip& clip = view.clip;
  const proto::Finding& f = clip.finding();
  out << "# pecan clip for " << f.id() << " (" << f.pattern()
      << (f.variant().empty() ? "" : " " + f.variant()) << "): " << view.steps()
      << " steps, generator " << clip.generator() << "\n";
  out << "# clips keep only the anomaly events' targets; the others are shown as ?\n";
  if (strict) out << "# --strict-std: steps that plain STD cannot express are comment lines\n";
  // A FORK's child is known from the thread table: the n-th fork of a thread creates its n-th
  // child, and a schedule holds each thread's events from its first one on.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> child_of;
  for (const auto& t : clip.threads()) {
    if (t.has_parent()) child_of[{t.parent(), t.ordinal()}] = t.id();
  }
  std::map<uint32_t, uint32_t> forks_so_far;
  for (size_t s = 0; s < view.steps(); ++s) {
    const int i = static_cast<int>(s);
    const EventKind kind = KindOf(clip.step_kind(i));
    const uint32_t thread = view.step_thread[s];
    const StdOperation* op = StdOperationForKind(kind);
    if (view.anomaly[s]) out << "# " << view.AnomalyText(s) << "\n";
    if (!op) {
      out << "# " << view.ThreadName(thread) << " " << EventKindName(kind) << " (no STD form)\n";
      continue;
    }
    std::string target = "?";
    if (view.anomaly[s] && static_cast<int>(view.anomaly[s]) <= f.events_size()) {
      target = std::string(1, StdNamespaceLetter(op->space)) +
               Hex(f.events(static_cast<int>(view.anomaly[s]) - 1).address());
    }
    if (kind == EventKind::kFork) {
      auto it = child_of.find({thread, forks_so_far[thread]++});
      if (it != child_of.end()) target = view.ThreadName(it->second);
    }
    std::string line = view.ThreadName(thread) + "|" + std::string(op->name);
    // Without a target (thread begin/end, a fence whose order the clip does not keep) the bare
    // operation name is valid STD.
    if (op->has_parentheses && op->space != StdNamespace::kNone) line += "(" + target + ")";
    line += "|" + view.StdLocation(clip.step_site(i));
    if (strict && !op->plain) {
      out << "# " << line << "  (pecan extension)\n";
    } else if (op->argument == StdArgument::kRequiredCount) {
      // Barriers, allocations: the clip keeps no count, and STD requires one.
      out << "# " << line << "  (the clip keeps no count)\n";
    } else {
      out << line << "\n";
    }
  }
}

void DumpJson(const ClipView& view, std::ostream& out) {
  using nlohmann::json;
  const proto::Clip& clip = view.clip;
  const proto::Finding& f = clip.finding();
  json header;
  header["type"] = "clip";
  header["format"] = {{"major", clip.format_major()}, {"minor", clip.format_minor()}};
  header["trace_hash"] = clip.trace_hash();
  header["program"] = clip.program();
  header["args"] = json::array();
  for (const auto& arg : clip.args()) header["args"].push_back(arg);
  header["generator"] = clip.generator();
  header["steps"] = view.steps();
  header["runs"] = clip.run_thread_size();
  header["moved_steps"] =
      std::vector<uint64_t>(clip.moved_steps().begin(), clip.moved_steps().end());
  header["anomaly_steps"] =
      std::vector<uint64_t>(clip.anomaly_steps().begin(), clip.anomaly_steps().end());
  json finding = {{"id", f.id()},           {"pattern", f.pattern()},
                  {"variant", f.variant()}, {"observed", f.observed()},
                  {"reason", f.reason()},   {"witnesses", f.witnesses()}};
  finding["events"] = json::array();
  for (const auto& e : f.events()) {
    json locks = json::array();
    for (uint64_t l : e.locks_held()) locks.push_back(Hex(l));
    finding["events"].push_back({{"index", e.index()},
                                 {"thread", e.thread()},
                                 {"kind", EventKindName(KindOf(e.kind()))},
                                 {"address", Hex(e.address())},
                                 {"size", e.size()},
                                 {"site", e.site()},
                                 {"locks_held", locks}});
  }
  finding["overtaken"] = std::vector<uint64_t>(f.overtaken().begin(), f.overtaken().end());
  header["finding"] = finding;
  header["threads"] = json::array();
  for (const auto& t : clip.threads()) {
    json thread = {{"id", t.id()}, {"ordinal", t.ordinal()}, {"name", view.ThreadName(t.id())}};
    thread["parent"] = t.has_parent() ? json(t.parent()) : json(nullptr);
    header["threads"].push_back(thread);
  }
  header["modules"] = json::array();
  for (const auto& m : clip.modules()) {
    header["modules"].push_back({{"id", m.id()},
                                 {"path", m.path()},
                                 {"load_address", Hex(m.load_address())},
                                 {"build_id", HexBytes(m.build_id())}});
  }
  header["sites"] = json::array();
  for (const auto& s : clip.sites()) {
    header["sites"].push_back(
        {{"id", s.id()}, {"module", s.module()}, {"offset", Hex(s.offset())}});
  }
  const auto& settings = clip.settings();
  header["settings"] = {{"func_events", settings.func_events()},
                        {"stack_accesses", settings.stack_accesses()},
                        {"fork_policy", settings.fork_policy()},
                        {"drop_repeats", settings.drop_repeats()}};
  out << header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  for (size_t s = 0; s < view.steps(); ++s) {
    const int i = static_cast<int>(s);
    json step = {{"type", "step"},
                 {"step", s},
                 {"thread", view.step_thread[s]},
                 {"kind", EventKindName(KindOf(clip.step_kind(i)))},
                 {"site", clip.step_site(i)},
                 {"origin", clip.step_origin(i)}};
    if (view.moved[s]) step["moved"] = true;
    if (view.anomaly[s]) step["anomaly"] = view.anomaly[s];
    out << step.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
}

}  // namespace

bool IsClipHeader(std::string_view first_bytes) {
  return first_bytes.size() >= sizeof(kClipMagic) &&
         first_bytes.substr(0, sizeof(kClipMagic)) ==
             std::string_view(reinterpret_cast<const char*>(kClipMagic), sizeof(kClipMagic));
}

void DumpClip(const proto::Clip& clip, const std::string& format, std::ostream& out,
              bool strict_std) {
  ClipView view(clip);
  if (format == "text") {
    DumpText(view, out);
  } else if (format == "std") {
    DumpStd(view, strict_std, out);
  } else if (format == "json") {
    DumpJson(view, out);
  } else {
    throw PecanError("dump: unknown clip format '" + format + "' (text, std or json)");
  }
}

int DumpClip(const std::string& path, const std::string& format, bool strict_std) {
  DumpClip(ReadClipFile(path), format, std::cout, strict_std);
  std::cout.flush();
  if (!std::cout) throw PecanError("dump: cannot write the output");
  return 0;
}

}  // namespace pecan
