// Entry point of the `pecan` command: builds the CLI11 app from the registered subcommands,
// runs the chosen one, and turns PecanError into a one-line message and exit status 2 (control
// bytes and ill-formed UTF-8 from the input escaped as \xNN); a termination signal ends pecan and
// whatever it started (workflow/child_supervision.h).
#include <google/protobuf/stubs/logging.h>
#include <algorithm>

#include <iostream>

#include "cli/command.h"
#include "cli/memory_limit.h"
#include "trace_format/error.h"
#include "trace_format/utf8_text.h"
#include "trace_format/version.h"
#include "workflow/child_supervision.h"

namespace pecan::cli {

using workflow::EndIfTerminationRequested;
using workflow::InstallTerminationHandlers;

std::vector<CommandSpec>& CommandRegistry() {
  static std::vector<CommandSpec> registry;
  return registry;
}
}  // namespace pecan::cli

int main(int argc, char** argv) {
  using namespace pecan::cli;
  // libprotobuf logs its own lines ("[libprotobuf ERROR ...]") for input pecan then reports in
  // its own words, with the file and offset: only pecan's line is shown.
  google::protobuf::SetLogHandler(nullptr);
  // Past the machine's memory, pecan says "out of memory" rather than being killed unawares.
  SetMemoryLimit(DefaultMemoryLimit());
  CLI::App app{
      "pecan: finds concurrency bugs in C and C++ programs and proves each one.\n"
      "Record a run, predict the races and atomicity violations other interleavings\n"
      "would show, and confirm each by replaying a bug-hatching schedule.",
      "pecan"};
  app.set_version_flag("--version", std::string("pecan ") + pecan::kVersionString);
  app.require_subcommand(1);
  app.fallthrough(false);

  auto& registry = CommandRegistry();
  std::sort(registry.begin(), registry.end(),
            [](const CommandSpec& a, const CommandSpec& b) { return a.order < b.order; });
  std::function<int()> chosen;
  for (auto& spec : registry) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.description);
    auto run = spec.setup(*sub);
    sub->callback([&chosen, run] { chosen = run; });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, like every other error; the subcommand's --help says how to use it.
    std::cerr << "pecan: error: " << pecan::PrintableText(e.what()) << " (see --help)\n";
    return 2;
  }
  // From here on, whatever pecan starts ends with it (SIGINT, SIGTERM, SIGHUP).
  InstallTerminationHandlers();
  int status = 2;
  try {
    status = chosen ? chosen() : 2;
  } catch (const pecan::PecanError& e) {
    std::cerr << "pecan: error: " << pecan::PrintableText(e.what()) << "\n";
  } catch (const std::bad_alloc& e) {
    // Exhaustion is said as such (exit status 3), never as a bad input: the input may be fine
    // and only too big for the bound.
    std::cerr << "pecan: error: " << OutOfMemoryText(e)
              << "; try --max-memory with more (the built-in patterns under --regions locks "
                 "are searched on a .pecan file without holding its events; pattern files and "
                 "--regions functions hold them)\n";
    status = 3;
  } catch (const std::exception& e) {
    std::cerr << "pecan: internal error: " << pecan::PrintableText(e.what()) << "\n";
  }
  // A command that finished after a termination signal (record reports its trace first) ends
  // by that signal, as the caller asked.
  EndIfTerminationRequested();
  return status;
}
