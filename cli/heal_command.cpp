// `pecan heal REPORT -- PROGRAM [ARGS...]`: runs the program with the runtime in heal mode, which
// serializes the accesses of the races REPORT names through extra locks (AtomRace's healing,
// recorder/heal_sections.h), says how often healing engaged and exits with the program's status.
#include <functional>
#include <memory>
#include <string>

#include "cli/command.h"
#include "workflow/heal.h"

namespace pecan::cli {

using workflow::HealOptions;
using workflow::RunHeal;

namespace {

constexpr const char* kHealHelp =
    R"(Healing (AtomRace, Letko et al. 2008): every access to the racy locations REPORT names -
its racing instructions, the globals it names, and every location those instructions touch
in this run - takes an extra lock chosen by the location, held over the read-modify-write
(a read and the write that follows it), so the race's accesses no longer interleave.
Limits: it hides the bug, it does not fix it (fix the code); it protects only the listed
accesses, not the program's invariants across several variables; sites are instruction
offsets, so the program must be the same build that was recorded; a thread that waits for
a healing lock over 1 s (its holder blocked where pecan does not see) goes on without it,
and the summary counts that as "gave up". Nothing is recorded.
The runtime reads PECAN_MODE=heal, PECAN_HEAL=FILE and PECAN_HEAL_STATS=FILE
(docs/runtime-env.md).)";

std::function<int()> SetupHeal(CLI::App& app) {
  auto options = std::make_shared<HealOptions>();
  app.add_option("report", options->report,
                 "The races to heal: a `pecan analyze --format json` report (its race and "
                 "atomicity findings; its trace must still exist) or a `pecan fuzz` fuzz.json "
                 "(every run's races)")
      ->required()
      ->type_name("REPORT");
  app.add_option("--race", options->race_id,
                 "Heal only this finding of an analyze report (its id, e.g. R1)")
      ->type_name("ID");
  app.add_flag("-q,--quiet", options->quiet,
               "Print nothing but errors (no summary; the runtime's messages silenced)");
  app.add_option("command", options->command,
                 "The program and its arguments, after --; the same build the report was made of")
      ->required()
      ->type_name("PROGRAM [ARGS...]");
  app.footer(kHealHelp);
  app.positionals_at_end();
  return [options] { return RunHeal(*options); };
}

}  // namespace

PECAN_COMMAND("heal",
              "Run a program with extra locks around the racy accesses a report names (AtomRace's "
              "healing): the race stops showing, the bug stays; exits with the program's status",
              58, SetupHeal);

}  // namespace pecan::cli
