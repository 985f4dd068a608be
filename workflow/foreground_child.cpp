// ForegroundChild: posix_spawnp with POSIX_SPAWN_SETSIGDEF for SIGINT/SIGQUIT.
#include "workflow/foreground_child.h"

#include <spawn.h>

#include <cstring>
#include <iostream>

#include "trace_format/error.h"
#include "workflow/program_lookup.h"

namespace pecan::workflow {

ForegroundChild::ForegroundChild(const std::string& executable, std::vector<std::string> argv,
                                 std::vector<std::string> environment, const std::string& context) {
  std::vector<char*> argv_c = CStrings(argv);
  std::vector<char*> environment_c = CStrings(environment);
  // Ctrl-\ is for the program alone. Ctrl-C reaches pecan's handler (child_supervision.h), which
  // leaves a terminal's signal to the program and forwards one sent to pecan alone.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGQUIT, &ignore, &old_quit_);

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  std::cout.flush();  // what pecan printed comes before the program's output
  std::cerr.flush();
  const int error = posix_spawnp(&pid_, executable.c_str(), nullptr, &attributes, argv_c.data(),
                                 environment_c.data());
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    ::sigaction(SIGQUIT, &old_quit_, nullptr);
    throw PecanError(context + "cannot run " + executable + ": " + std::strerror(error));
  }
  supervised_.Started(pid_);
}

ForegroundChild::~ForegroundChild() {
  ::sigaction(SIGQUIT, &old_quit_, nullptr);
}

}  // namespace pecan::workflow
