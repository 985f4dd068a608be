// Whatever pecan starts ends with it: SIGINT, SIGTERM and SIGHUP are forwarded to every running
// child, SIGKILL follows after a grace period, and pecan then ends by the same signal.
#pragma once

#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "trace_format/error.h"

namespace pecan::workflow {

// Where a child runs. kOwn: in a process group of its own, signalled as a group (the child and
// whatever it started). kPecans: in pecan's, so the terminal's Ctrl-C reaches it and it may read
// the terminal; signalled by pid, and a signal the terminal sent is left to it (it got it too).
enum class ChildGroup { kOwn, kPecans };

// How long a child has after the forwarded signal before SIGKILL: the runtime finishes a trace
// or a verdict well within it, and the whole run is gone within a second of the signal.
inline constexpr std::chrono::milliseconds kTerminationGrace{500};

// Children running at once: hunt and triage run at most 256 jobs (--jobs), each one child.
inline constexpr int kMaxSupervisedChildren = 512;

// How a supervised child ended (its wait status), and whether its time bound killed it.
struct SupervisedEnd {
  int status = 0;
  bool timed_out = false;
  double seconds = 0;
};

// Installs the SIGINT, SIGTERM and SIGHUP handlers; a signal pecan inherited as ignored (nohup,
// a background job) stays ignored. Called once, before any child starts.
void InstallTerminationHandlers();

// The termination signal pecan received, 0 when none.
int TerminationSignal();

// When pecan was asked to end: waits until no child runs or starts any more (their threads kill
// them within the grace period), then ends pecan by that signal. Otherwise returns at once.
void EndIfTerminationRequested();

// One child process from just before it starts until it has been reaped. Start it between the
// constructor and Started(), then Wait() for it.
class SupervisedChild {
 public:
  // Takes a slot, so a signal arriving while the child starts waits for it. When pecan is
  // already ending, starts nothing: ends pecan (EndIfTerminationRequested) instead.
  explicit SupervisedChild(ChildGroup group);
  ~SupervisedChild() { Release(); }
  SupervisedChild(const SupervisedChild&) = delete;
  SupervisedChild& operator=(const SupervisedChild&) = delete;

  // The child runs: termination signals reach it from now on (one that came while it started
  // is sent now).
  void Started(pid_t pid);

  // Waits until the child ends. When `bound_seconds` (> 0) have passed since `start` it is
  // killed: by SIGKILL, or with a `term_grace` first by SIGTERM (so it can finish what it
  // writes) and by SIGKILL only if it is still there after the grace. It is killed
  // kTerminationGrace after pecan was asked to end; then whatever is left of its own process
  // group is killed too. Throws PecanError when the child cannot be waited for.
  SupervisedEnd Wait(std::chrono::steady_clock::time_point start, double bound_seconds,
                     std::chrono::milliseconds term_grace = std::chrono::milliseconds(0));

 private:
  void Signal(int signal_number) const { ::kill(own_group_ ? -pid_ : pid_, signal_number); }
  void Release();

  int slot_ = -1;
  pid_t pid_ = 0;
  bool own_group_;
};

}  // namespace pecan::workflow
