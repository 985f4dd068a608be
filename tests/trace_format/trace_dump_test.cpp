// Tests of what `pecan dump` prints (text, STD, JSON lines), of file-kind detection, and of the
// PECAN Figure 1 example trace shipped in examples/traces.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "random_trace.h"
#include "tests/support/text_lines.h"
#include "trace_format/file_kind.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_dump.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"
#include "trace_format/version.h"

using namespace pecan;
using pecan::testing::TempFile;

namespace {

const std::string kFigure1 = std::string(PECAN_SOURCE_DIR) + "/examples/traces/figure1.std";

using pecan::test::Lines;

}  // namespace

TEST_CASE("PECAN Figure 1 trace has the paper's shape", "[dump][paper]") {
  Trace t = ImportStdFile(kFigure1);
  REQUIRE(t.size_events() == 6);
  // The recorded order <1, 5, 2, 3, 6, 7> by statement (the location field).
  std::vector<uint64_t> statements;
  for (EventIndex i = 0; i < t.size_events(); ++i) statements.push_back(t.sites[t.site[i]].offset);
  CHECK(statements == std::vector<uint64_t>{1, 5, 2, 3, 6, 7});
  CHECK(t.thread == std::vector<ThreadId>{0, 1, 0, 0, 1, 1});
  CHECK(t.kind[0] == EventKind::kFork);
  CHECK(t.threads[1].parent == std::optional<ThreadId>(0));
  // Statements 2, 5, 6 share one variable; 3 and 7 the other.
  CHECK(t.addr[2] == t.addr[1]);
  CHECK(t.addr[4] == t.addr[1]);
  CHECK(t.addr[3] == t.addr[5]);
  CHECK(t.addr[3] != t.addr[1]);
}

TEST_CASE("dump prints text, STD and JSON lines", "[dump]") {
  Trace t = ImportStdFile(kFigure1);
  TempFile file("figure1.pecan");
  WriteTrace(file.path(), t);

  std::ostringstream text;
  {
    TraceReader reader(file.path());
    DumpTrace(reader, text, TraceDumpOptions{DumpFormat::kText, false, {}});
  }
  auto lines = Lines(text.str());
  REQUIRE(lines.size() == 4 + 6);  // four comment lines, then the events
  const std::string format =
      std::to_string(kTraceFormatMajor) + "." + std::to_string(kTraceFormatMinor);
  CHECK(lines[0] == "# pecan trace, format " + format + ", written by std-import");
  CHECK_THAT(lines[4], Catch::Matches(R"(\s+0  T0\s+fork\s+T1\s+@ loc 1)"));
  CHECK_THAT(lines[5], Catch::Matches(R"(\s+1  T1\s+write\s+0x100000000 \(y\) size 8\s+@ loc 5)"));

  std::ostringstream std_text;
  {
    TraceReader reader(file.path());
    DumpTrace(reader, std_text, TraceDumpOptions{DumpFormat::kStd, false, {}});
  }
  CHECK(std_text.str() == "T0|fork(T1)|1\nT1|w(y)|5\nT0|w(y)|2\nT0|r(x)|3\nT1|r(y)|6\nT1|w(x)|7\n");

  std::ostringstream json;
  {
    TraceReader reader(file.path());
    DumpTrace(reader, json, TraceDumpOptions{DumpFormat::kJson, false, {}});
  }
  auto json_lines = Lines(json.str());
  REQUIRE(json_lines.size() == 1 + 6 + 1);
  auto header = nlohmann::json::parse(json_lines[0]);
  CHECK(header["type"] == "header");
  CHECK(header["format"] ==
        std::to_string(kTraceFormatMajor) + "." + std::to_string(kTraceFormatMinor));
  auto event = nlohmann::json::parse(json_lines[4]);
  CHECK(event["type"] == "event");
  CHECK(event["index"] == 3);
  CHECK(event["kind"] == "read");
  CHECK(event["name"] == "x");
  CHECK(event["where"] == "loc 3");
  auto tables = nlohmann::json::parse(json_lines.back());
  CHECK(tables["type"] == "tables");
  CHECK(tables["complete"] == true);
  CHECK(tables["threads"].size() == 2);
  CHECK(tables["threads"][1]["parent"] == 0);
}

TEST_CASE("dump decodes flags and describes recorded sites", "[dump]") {
  Trace t;
  t.meta.program = "/usr/bin/app";
  t.threads = {ThreadInfo{}, ThreadInfo{0, 0, "worker"}};
  t.modules = {ModuleInfo{1, "/usr/bin/app", 0x400000, ""}};
  t.sites = {SiteInfo{1, 0x1234}, SiteInfo{7, 0x10}};
  t.names = {AddressName{0x601040, 64, "table"}};
  t.push_back(Event{1, EventKind::kAtomicStore, 3, 4, 0x601050, 0});
  t.push_back(Event{1, EventKind::kLock, kTryLockFlag, 0, 0x7000, 1});
  t.push_back(Event{0, EventKind::kWait, kWaitTimedOutFlag, 0, 0x8000, 0});
  t.push_back(Event{0, static_cast<EventKind>(77), 0, 0, 0, 0});
  std::ostringstream out;
  DumpTrace(t, out, TraceDumpOptions{});
  auto lines = Lines(out.str());
  REQUIRE(lines.size() == 4 + 4);
  CHECK_THAT(
      lines[4],
      Catch::Matches(
          R"(\s+0  T1\(worker\) atomic_store\s+0x601050 \(table\+16\) size 4 release\s+@ app\+0x1234)"));
  CHECK_THAT(lines[5], Catch::Matches(R"(\s+1  T1\(worker\) lock\s+0x7000 try\s+@ module7\+0x10)"));
  CHECK_THAT(lines[6], Catch::Contains("wait           0x8000 timed-out"));
  CHECK_THAT(lines[7], Catch::Contains("kind77"));

  // A symbolizer plugs in through the symbols factory: sites and names.
  TraceDumpOptions symbolized;
  symbolized.symbols = [](const Trace& tables) {
    return DumpSymbols{
        [&tables](SiteId s) { return "file.c:" + std::to_string(tables.sites[s].offset); },
        [](uint64_t address) -> std::optional<std::string> {
          if (address == 0x7000) return "queue_lock";
          return std::nullopt;
        }};
  };
  std::ostringstream with_lines;
  DumpTrace(t, with_lines, symbolized);
  CHECK_THAT(with_lines.str(), Catch::Contains("@ file.c:4660"));
  CHECK_THAT(with_lines.str(), Catch::Contains("0x7000 (queue_lock) try"));
  // The symbols' namer replaces the trace's name table (a symbolizer consults both).
  CHECK_THAT(with_lines.str(), !Catch::Contains("(table+16)"));
}

TEST_CASE("trace files are recognized by magic, extension or first line", "[dump]") {
  TempFile pecan_file("kind.bin"), std_file("kind.data"), other("kind.other");
  WriteTrace(pecan_file.path(), ImportStdFile(kFigure1));
  CHECK(DetectTraceFileKind(pecan_file.path()) == TraceFileKind::kPecan);
  CHECK(DetectTraceFileKind(kFigure1) == TraceFileKind::kStd);
  pecan::testing::WriteFileBytes(std_file.path(), "# comment\n\nT0|r(x)|1\n");
  CHECK(DetectTraceFileKind(std_file.path()) == TraceFileKind::kStd);
  // A file that is neither goes to the .pecan reader, whose error names the byte offset (the
  // commands print it); so does anything named *.pecan.
  pecan::testing::WriteFileBytes(other.path(), "hello world\n");
  CHECK(DetectTraceFileKind(other.path()) == TraceFileKind::kPecan);
  CHECK_THROWS_WITH(ReadTrace(other.path()),
                    other.path() + ":byte 0: not a pecan trace (bad magic)");
  TempFile named("kind.pecan"), binary("kind.bin"), comments("kind.notes");
  pecan::testing::WriteFileBytes(named.path(), "T0|r(x)|1\n");
  CHECK(DetectTraceFileKind(named.path()) == TraceFileKind::kPecan);
  pecan::testing::WriteFileBytes(binary.path(), std::string("\x7f"
                                                            "ELF\0\0|a|b\n",
                                                            11));
  CHECK(DetectTraceFileKind(binary.path()) == TraceFileKind::kPecan);
  pecan::testing::WriteFileBytes(comments.path(), "# only comments: an empty STD trace\n\n");
  CHECK(DetectTraceFileKind(comments.path()) == TraceFileKind::kStd);
}

TEST_CASE("dump text: the columns line up when threads have names", "[dump]") {
  Trace t;
  t.threads = {ThreadInfo{std::nullopt, 0, "main"}, ThreadInfo{0, 0, "T1"},
               ThreadInfo{0, 1, "a-long-worker-name"}};
  t.sites = {SiteInfo{kNoModule, 1}};
  t.push_back(Event{0, EventKind::kWrite, 0, 8, 0x1000, 0});
  t.push_back(Event{1, EventKind::kRead, 0, 8, 0x1000, 0});
  t.push_back(Event{2, EventKind::kWrite, 0, 8, 0x1000, 0});
  std::ostringstream out;
  DumpTrace(t, out, TraceDumpOptions{});
  auto lines = Lines(out.str());
  REQUIRE(lines.size() == 3 + 3);  // no program line: three comment lines, then the events
  // The kind column starts at the same place on every line, and under its heading.
  const size_t kind_column = lines[2].find("kind");
  REQUIRE(kind_column != std::string::npos);
  CHECK(lines[3].find("write") == kind_column);
  CHECK(lines[4].find("read") == kind_column);
  CHECK(lines[5].find("write") == kind_column);
  CHECK_THAT(lines[3], Catch::Contains("T0(main) "));
  CHECK_THAT(lines[5], Catch::Contains("T2(a-long-worker-name) write"));
  CHECK(FormatEventText(t, t.event(1), 1, [](SiteId) { return "x"; }).find("read") == kind_column);
}
