// The built `pecan` on what users feed it: PATTERNS.md's worked example (pattern file, trace and
// the output the document shows), the PTG picture, and `convert`, `stats` and `dump` on foreign
// files and STD export.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/cli_workspace.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_reader.h"

namespace {

using RunResult = pecan::test::CliRun;
using pecan::test::ReadWholeFile;

// A scratch folder; `pecan` runs in it (tests/support/cli_workspace.h).
struct Workspace : pecan::test::CliWorkspace {
  Workspace() : CliWorkspace("commands-test", PECAN_BINARY) {}
};

// The fenced code blocks of `markdown` after the heading `heading`, up to the next heading of
// the same level.
std::vector<std::string> CodeBlocksUnder(const std::string& markdown, const std::string& heading) {
  std::vector<std::string> blocks;
  std::istringstream in(markdown);
  std::string line;
  bool inside_section = false;
  bool inside_block = false;
  std::string block;
  while (std::getline(in, line)) {
    if (!inside_block && line.rfind("## ", 0) == 0) {
      if (inside_section) break;
      inside_section = line == heading;
      continue;
    }
    if (!inside_section) continue;
    if (line.rfind("```", 0) == 0) {
      if (inside_block) blocks.push_back(block);
      inside_block = !inside_block;
      block.clear();
      continue;
    }
    if (inside_block) block += line + "\n";
  }
  return blocks;
}

}  // namespace

TEST_CASE("PATTERNS.md's check-then-act example prints what the document shows",
          "[patterns][cli]") {
  const std::string doc = ReadWholeFile(std::string(PECAN_SOURCE_DIR) + "/analyzer/PATTERNS.md");
  const auto blocks = CodeBlocksUnder(doc, "## Writing your own: an example");
  // The pattern file, the trace, the command and what it prints.
  REQUIRE(blocks.size() == 4);
  Workspace ws;
  ws.Write("check-then-act.txt", blocks[0]);
  ws.Write("cta.std", blocks[1]);
  REQUIRE(blocks[2].rfind("pecan ", 0) == 0);
  RunResult run = ws.Pecan(blocks[2].substr(6, blocks[2].size() - 7));
  INFO(run.err);
  CHECK(run.status == 0);
  CHECK(run.out == blocks[3]);
  CHECK_THAT(run.out, Catch::Contains("[check-then-act R-W-W]"));
}

TEST_CASE("pecan analyze --ptg-dot writes the PTG around the findings", "[ptg][cli]") {
  Workspace ws;
  const std::string trace = ws.Write(
      "figure1.std", ReadWholeFile(std::string(PECAN_SOURCE_DIR) + "/examples/traces/figure1.std"));
  RunResult run = ws.Pecan("analyze figure1.std --ptg-dot figure1.dot");
  INFO(run.err);
  REQUIRE(run.status == 0);
  const std::string dot = ReadWholeFile(ws.Path("figure1.dot"));
  INFO(dot);
  CHECK(dot.rfind("digraph G {", 0) == 0);
  CHECK_THAT(dot, Catch::Contains("e0->e1 [style=solid, color=blue]"));  // fork
  CHECK_THAT(dot, Catch::Contains("e3->e5 [style=dashed"));              // TOR on x
  CHECK_THAT(dot, Catch::Contains("F1: race"));
  RunResult help = ws.Pecan("analyze --help");
  CHECK_THAT(help.out, Catch::Contains("--ptg-dot") && Catch::Contains("share/doc/pecan"));
  RunResult unwritable = ws.Pecan("analyze figure1.std --ptg-dot no/such/dir/x.dot");
  CHECK(unwritable.status == 2);
  CHECK_THAT(unwritable.err, Catch::Contains("no/such/dir/x.dot: cannot write"));
}

TEST_CASE("convert, stats and dump name the byte offset of a foreign file", "[cli]") {
  Workspace ws;
  ws.Write("foreign.pecan", "GIF89a\x01\x02 not a trace");
  ws.Write("foreign.bin", std::string("\x7f"
                                      "ELF\x02\x01\x01\0\0\0",
                                      10));
  for (const char* file : {"foreign.pecan", "foreign.bin"}) {
    for (const std::string& command : {std::string("stats ") + file, std::string("dump ") + file,
                                       std::string("convert ") + file + " out.std"}) {
      INFO(command);
      RunResult run = ws.Pecan(command);
      CHECK(run.status == 2);
      CHECK(run.err ==
            std::string("pecan: error: ") + file + ":byte 0: not a pecan trace (bad magic)\n");
    }
  }
  // STD text without an extension is still recognized by its first line.
  ws.Write("plain", "# a comment\nT0|w(x)|1\nT1|w(x)|2\n");
  RunResult stats = ws.Pecan("stats plain");
  INFO(stats.err);
  CHECK(stats.status == 0);
  CHECK_THAT(stats.out, Catch::Contains("STD text"));
}

TEST_CASE("convert counts the events it wrote, not the ones it read", "[cli]") {
  Workspace ws;
  // 2 plain STD events among 13: --strict-std writes 2 lines.
  ws.Write("mixed.std",
           "T0|fork(T1)|1\n"
           "T0|begin(r)|2\n"
           "T0|aload(a)|3\n"
           "T0|astore(a,release)|4\n"
           "T0|notify(c)|5\n"
           "T0|end(r)|6\n"
           "T1|begin|7\n"
           "T1|wait(c)|8\n"
           "T1|enter(f)|9\n"
           "T1|w(x)|10\n"
           "T1|exit(f)|11\n"
           "T1|post(s)|12\n"
           "T1|end|13\n");
  RunResult strict = ws.Pecan("convert mixed.std strict.std --strict-std");
  INFO(strict.err);
  REQUIRE(strict.status == 0);
  const std::string written = ReadWholeFile(ws.Path("strict.std"));
  CHECK(written == "T0|fork(T1)|1\nT1|w(x)|10\n");
  CHECK(strict.out ==
        "pecan convert: wrote 2 events to strict.std (std; 11 of 13 left out: plain STD cannot "
        "express them)\n");
  RunResult full = ws.Pecan("convert mixed.std full.std");
  CHECK(full.out == "pecan convert: wrote 13 events to full.std (std)\n");
  // Through .pecan, streaming: the same count.
  REQUIRE(ws.Pecan("convert mixed.std mixed.pecan").status == 0);
  RunResult streamed = ws.Pecan("convert mixed.pecan strict2.std --strict-std");
  CHECK(streamed.out ==
        "pecan convert: wrote 2 events to strict2.std (std; 11 of 13 left out: plain STD cannot "
        "express them)\n");
  CHECK(ReadWholeFile(ws.Path("strict2.std")) == written);
}
