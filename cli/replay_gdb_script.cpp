// The gdb script: a breakpoint on pecan_anomaly_formed() whose commands print the stop message
// (Python, from the events and the runtime's verdict) and select the program's frame.
#include "cli/replay_gdb_script.h"

#include <cstdio>
#include <fstream>

#include "trace_format/error.h"

namespace pecan::cli {
namespace {

// A Python string literal holding `text` byte for byte (non-ASCII bytes as \x escapes).
std::string PythonString(const std::string& text) {
  std::string literal = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      literal += '\\';
      literal += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02x", c);
      literal += escape;
    } else {
      literal += static_cast<char>(c);
    }
  }
  return literal + "\"";
}

// The runtime calls pecan_anomaly_formed() inside the instrumentation callback of an anomaly
// event, before that access runs, and writes its verdict first. Usually that event is the last
// one; when the last event's thread already waits at its access on the same location (always the
// aim for a race), it is the one before the last, and the verdict's reason says so
// (replayer/replay_session.cpp, OnAnomalyFormed). The message names the thread stopped in the
// selected frame, the events that already ran and the order the rest run in on `continue`.
constexpr const char* kExplain = R"py(
def pecan_last_thread_waits():
    try:
        with open(pecan_verdict, 'rb') as verdict:
            return b'its thread stopped at it' in verdict.read()
    except OSError:
        return False

def pecan_explain():
    events = pecan_events
    n = len(events)
    if n == 0:
        gdb.write('\npecan: the schedule reached its end (the clip names no anomaly events)\n')
        return
    stopped = n - 2 if n >= 2 and pecan_last_thread_waits() else n - 1
    gdb.write('\npecan: the anomaly formed; its events in the order they run:\n')
    for i, (thread, kind, site) in enumerate(events):
        if i < stopped:
            state = 'ran'
        elif i == stopped:
            state = 'about to run: this thread is stopped here'
        else:
            state = 'not run: its thread waits at it'
        gdb.write('  %d. %s %s at %s  [%s]\n' % (i + 1, thread, kind, site, state))
    thread, kind, site = events[stopped]
    gdb.write('pecan: stopped: %s, before its %s at %s runs\n' % (thread, kind, site))
    rest = ', then '.join("%s's %s" % (t, k) for (t, k, s) in events[stopped:])
    gdb.write('pecan: `continue` runs %s, then lets the program run on\n' % rest)

def pecan_select_program_frame():
    frame = gdb.newest_frame()
    while frame is not None:
        library = gdb.solib_name(frame.pc())
        if library is None or 'libpecan_rt' not in library:
            frame.select()
            return
        frame = frame.older()
)py";

}  // namespace

std::string WriteGdbScript(const std::vector<AnomalyEventText>& in_run_order,
                           const std::string& verdict_path) {
  const std::string path = verdict_path + ".gdb";
  std::ofstream script(path);
  script << "set pagination off\n"
            "set startup-with-shell off\n"
            "set breakpoint pending on\n"
            "python\n"
            "import gdb\n"
            "pecan_verdict = "
         << PythonString(verdict_path) << "\npecan_events = [\n";
  for (const AnomalyEventText& event : in_run_order) {
    script << "    (" << PythonString(event.thread) << ", " << PythonString(event.kind) << ", "
           << PythonString(event.site) << "),\n";
  }
  script << "]\n"
         << kExplain
         << "end\n"
            "break pecan_anomaly_formed\n"
            "commands\n"
            "silent\n"
            "python pecan_explain()\n"
            "python pecan_select_program_frame()\n"
            "frame\n"
            "end\n"
            "run\n";
  script.close();
  if (!script) throw PecanError("replay: cannot write the gdb script " + path);
  return path;
}

}  // namespace pecan::cli
