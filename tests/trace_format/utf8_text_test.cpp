// UTF-8 checks and repairs (trace_format/utf8_text.h), and what they protect: a trace whose
// names are not UTF-8 is still written readable, and an STD line that is not UTF-8 is refused.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "random_trace.h"
#include "trace_format/error.h"
#include "trace_format/output_file.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"
#include "trace_format/utf8_text.h"

using namespace pecan;

TEST_CASE("ill-formed UTF-8 is found, replaced and escaped", "[utf8]") {
  CHECK(FirstInvalidUtf8("plain ascii") == std::string_view::npos);
  CHECK(FirstInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == std::string_view::npos);
  CHECK(FirstInvalidUtf8("ab\xff") == 2);
  CHECK(FirstInvalidUtf8("\xc0\xaf") == 0);          // overlong '/'
  CHECK(FirstInvalidUtf8("\xed\xa0\x80") == 0);      // a surrogate
  CHECK(FirstInvalidUtf8("\xf4\x90\x80\x80") == 0);  // above U+10FFFF
  CHECK(FirstInvalidUtf8("x\xe2\x82") == 1);         // cut short
  CHECK(ValidUtf8("a\xffz") == "a\xef\xbf\xbdz");
  CHECK(ValidUtf8("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(PrintableText("a\nb\x1b[0m\xff caf\xc3\xa9") == "a\\x0ab\\x1b[0m\\xff caf\xc3\xa9");
}

TEST_CASE("an STD line that is not UTF-8 is refused with its line and column", "[utf8][std]") {
  std::istringstream in("T0|w(x)|1\n# comments may hold \xff\nT0|r(\xc3\x28)|2\n");
  CHECK_THROWS_WITH(ImportStd(in, "t.std"), "t.std:3: not UTF-8 text: byte 0xC3 at column 6");
}

TEST_CASE("names that are not UTF-8 are written readable", "[utf8]") {
  // protobuf refuses to parse a string field that is not UTF-8: one stray byte in a thread name
  // made the whole trace unreadable.
  Trace trace = pecan::testing::MakeRandomTrace(3, pecan::testing::RandomTraceShape{20, 2, 3});
  trace.threads[1].name = "worker\xff";
  trace.meta.args = {"--name=\xfe"};
  pecan::testing::TempFile file("names.pecan");
  WriteTrace(file.path(), trace, TraceWriterOptions{8, 3});
  const Trace back = ReadTrace(file.path());
  CHECK(back.threads[1].name == "worker\xef\xbf\xbd");
  CHECK(back.meta.args == std::vector<std::string>{"\x2d\x2dname=\xef\xbf\xbd"});
  CHECK(back.size_events() == trace.size_events());
}

TEST_CASE("an output file that cannot be written leaves nothing and names the cause", "[output]") {
  CHECK_THROWS_WITH(WriteOutputFile("/dev/full", "bytes"),
                    "/dev/full: cannot write: No space left on device");
  pecan::testing::TempFile file("output.bin");
  WriteOutputFile(file.path(), "first");
  {
    OutputFile output(file.path());
    std::ofstream(output.temp_path()) << "never committed";
  }  // a failure before Commit: the old file stays, the temporary one is gone
  CHECK(pecan::testing::ReadFileBytes(file.path()) == "first");
  CHECK_FALSE(std::filesystem::exists(file.path() + ".tmp-" + std::to_string(::getpid())));
  CHECK_THROWS_WITH(WriteOutputFile("/nonexistent-dir/x", "bytes"),
                    "/nonexistent-dir/x: cannot create: No such file or directory");
}
