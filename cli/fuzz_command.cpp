// `pecan fuzz`: controlled exploration. Each run is a replay of the program's first event whose
// continuation is a seeded strategy (random, PCT or RaceFuzzer): one thread at a time, the next
// chosen among those ready, so a run is a function of its seed, and a failing run leaves the
// clip of what it executed, which fails the same way on every replay.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cli/command.h"
#include "workflow/fuzz.h"

namespace pecan::cli {

using workflow::FuzzOptions;
using workflow::RunFuzz;

namespace {

std::function<int()> SetupFuzz(CLI::App& app) {
  auto options = std::make_shared<FuzzOptions>();
  app.add_option("--strategy", options->strategy,
                 "random (default): at every event a uniformly random thread among those that "
                 "can run; pct: PCT's priorities with --depth change points; racefuzzer: random, "
                 "but a thread about to run a statement of a racing pair waits until another "
                 "is about to race with it; drfinder: random, but a lock acquisition another "
                 "thread may trigger first is postponed until it has; noise: threads run freely "
                 "with noise injected at accesses, and races are caught as they happen (see "
                 "below)")
      ->check(CLI::IsMember({"random", "pct", "racefuzzer", "drfinder", "noise"}));
  app.add_option("--runs", options->runs, "How many runs (default 100)")
      ->check(CLI::Range(size_t{1}, size_t{10000000}));
  app.add_option("--seed", options->seed,
                 "The first run's seed (default 0); run i uses seed S+i, so --seed S --runs 1 "
                 "repeats run S");
  app.add_option("--depth", options->depth,
                 "PCT's bug depth d; drfinder's call-stack depth of may-trigger relations "
                 "(default 3)")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--steps", options->steps,
                 "PCT's k, the run length its change points are drawn over (default: measured "
                 "by one random run of seed 0)")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout", options->timeout,
                 "Seconds each run may take (default 10); a run that takes longer fails as a hang")
      ->check(CLI::PositiveNumber);
  app.add_option("-j,--jobs", options->jobs, "Runs at the same time (default 2)")
      ->check(CLI::Range(size_t{1}, size_t{256}));
  app.add_option("--expect-exit", options->expect_exit,
                 "The program's normal exit status (default 0); any other is a failure")
      ->check(CLI::Range(0, 255));
  app.add_option("-o,--output", options->output,
                 "Directory for fuzz.json, fuzz.sarif, failures/ (the clip of each failing run) "
                 "and runs/ (the output of failing runs); default ./pecan-fuzz. A previous "
                 "fuzz's files there are replaced; files pecan did not write stop it")
      ->type_name("DIR");
  app.add_flag("--keep-traces", options->keep_traces,
               "Record every run into traces/run-SEED.pecan, for pecan analyze, clips or triage "
               "(prediction from fuzzed runs)");
  app.add_option("--source-root", options->source_root,
                 "Directory that source paths in fuzz.sarif are relative to (default: the "
                 "working directory)")
      ->type_name("DIR");
  app.add_option("--races", options->races,
                 "racefuzzer: target the races of this report (pecan analyze --format json, or "
                 "hunt's report.json; its trace must be where the report says or beside it); "
                 "default: the races of one recorded run (first-run.pecan)")
      ->type_name("REPORT");
  app.add_option("--race", options->race,
                 "racefuzzer: target only the racing pair of this finding id (default: runs "
                 "cycle through all pairs)")
      ->type_name("ID");
  app.add_option("--budget", options->budget,
                 "Seconds after which no further run starts (runs under way finish; default: "
                 "no bound)")
      ->check(CLI::PositiveNumber)
      ->type_name("SEC");
  app.add_flag("--until-failure", options->until_failure,
               "Start no further run once one has failed");
  app.add_option("--heuristic", options->heuristic,
                 "noise: where noise goes: random (default: any access), variable (the accesses "
                 "of --focus variables, rotated between runs) or location (--focus "
                 "instructions, rotated between runs)")
      ->check(CLI::IsMember({"random", "variable", "location"}));
  app.add_option("--frequency", options->frequency,
                 "noise: per mille of the heuristic's accesses that get noise (default 20 for "
                 "random, 200 for variable and location)")
      ->check(CLI::Range(1u, 1000u))
      ->type_name("PERMILLE");
  app.add_option("--strength", options->strength,
                 "noise: microseconds a noised thread sleeps before it yields (default 10; 0: it "
                 "only yields)")
      ->check(CLI::Range(0u, 1000000u))
      ->type_name("MICROS");
  app.add_option("--focus", options->focus,
                 "noise: variables (variable) or instructions (location) each run focuses on "
                 "(default 2 variables, 4 instructions)")
      ->check(CLI::Range(size_t{1}, size_t{1000}));
  app.add_option("--atomic", options->atomic,
                 "noise: atomic sections to check besides pecan_region_begin/end: lines "
                 "`function NAME` (entry to exit) or `lines FILE:FIRST-LAST` (from a thread's "
                 "first access inside to its first access, call or return outside)")
      ->type_name("FILE");
  app.add_option("command", options->command, "The program and its arguments, after --")
      ->required()
      ->type_name("PROGRAM [ARGS...]");
  app.positionals_at_end();
  app.footer(
      "Each run starts the program under pecan's scheduler: one thread runs at a time, switching\n"
      "only at instrumented events and synchronization, and the next thread is chosen by the\n"
      "strategy among those that can run (a thread waiting for a held lock or for a notify\n"
      "cannot). A run is a function of its seed. Failures: an assertion, a crash, an exit status\n"
      "other than --expect-exit, a deadlock (every thread waits: the message says who waits for\n"
      "what) or a hang (the run did not end within --timeout). Each failing run's schedule is\n"
      "written to failures/run-SEED.clip: `pecan replay CLIP -- PROGRAM ARGS` fails the same way\n"
      "every time (--gdb to debug it).\n"
      "\n"
      "PCT (Burckhardt et al., ASPLOS 2010): random distinct thread priorities, d-1 priority\n"
      "change points over the run's k events, always the highest-priority thread that can run.\n"
      "A bug of depth d in a program of n threads is found by one run with probability at least\n"
      "1/(n k^(d-1)). A thread that runs 10,000 events in a row while another could run is taken\n"
      "to spin and drops to the lowest priority.\n"
      "\n"
      "RaceFuzzer (Sen, PLDI 2008): the racing statement pairs of a race analysis; each run\n"
      "targets one pair (runs cycle through them). A thread about to execute one of the pair's\n"
      "statements is postponed until another thread is about to access the same bytes at one\n"
      "of them, one of the two a write: a real race, listed in the run's `races` in fuzz.json,\n"
      "and resolved by a coin (one goes first). When every thread that can run is postponed,\n"
      "one is released at random; all are released after 10,000 events in a row that only\n"
      "read (a spin-wait), and any after 2,000,000 events.\n"
      "\n"
      "DrFinder (Cai & Cao, ESEC/FSE 2015): may-trigger relations (a function on a thread's\n"
      "call stack, --depth deep, -> the class of a lock it later takes: its global's name or\n"
      "its heap block's allocation site) from a first recorded run. When a thread is about to\n"
      "take a lock of a class another thread's current functions may trigger, it waits while\n"
      "that thread is escorted to its own acquisition of the class: the lock order, and the\n"
      "happens-before edge it made, are reversed. Every run is recorded; the races its trace\n"
      "shows under happens-before are its `races` in fuzz.json, and its relations schedule the\n"
      "next run, so runs go one at a time.\n"
      "\n"
      "Noise (AtomRace: Letko, Vojnar, Krena, PADTAD 2008): threads run freely and every run\n"
      "is recorded. Each access opens a tiny atomic section of its thread that lasts until the\n"
      "thread's next event; another thread's access to the same bytes while it is open, one of\n"
      "the two a write, is a race that happened (no false alarms). Within pecan_region_begin/end,\n"
      "another thread's access between two of the region's accesses to a location that makes\n"
      "the three unserializable is an atomicity violation. Noise (a sleep of --strength\n"
      "microseconds, then a yield) inside the sections makes both likelier. Findings are each\n"
      "run's `races` in fuzz.json; a failing run is replayed from its recorded clip, which then\n"
      "reproduces the failure. `pecan heal fuzz.json -- PROGRAM` runs the program with the\n"
      "races it lists serialized.\n"
      "\n"
      "Exit status: 1 when a run failed, 0 when none did, 2 on errors.");
  return [options] { return RunFuzz(*options); };
}

}  // namespace

PECAN_COMMAND(
    "fuzz",
    "Run a program many times under seeded schedules (random, PCT, RaceFuzzer, DrFinder) or "
    "with noise (AtomRace); every failure comes with a clip that reproduces it",
    55, SetupFuzz);

}  // namespace pecan::cli
