// SymbolizedPlaces on the runtime's replay texts, with this test program as the clip's module:
// its "name+0xOFFSET" places become this file's line and function; what is not a place, or not
// one debug info resolves, stays as the runtime wrote it.
#include <link.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/replay_reason_text.h"

// Two places of code in this file, found as a recorder finds them: the return address of a call.
extern "C" {
struct ProbedPlace {
  uint64_t return_address;
  uint32_t line;
};
__attribute__((noinline)) uint64_t reason_text_return_address() {
  return reinterpret_cast<uint64_t>(__builtin_return_address(0));
}
__attribute__((noinline)) ProbedPlace reason_text_first_place() {
  ProbedPlace place{reason_text_return_address(), __LINE__};
  return place;
}
__attribute__((noinline)) ProbedPlace reason_text_second_place() {
  ProbedPlace place{reason_text_return_address(), __LINE__};
  return place;
}
}

namespace {

std::string SelfPath() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

// This program's file name, as the runtime writes a module in its texts.
std::string SelfName() {
  return std::filesystem::path(SelfPath()).filename().string();
}

uint64_t SelfLoadAddress() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uint64_t*>(out) = info->dlpi_addr;
        return 1;  // the first object is the main program
      },
      &bias);
  return bias;
}

std::string HexOffset(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// "name+0x..." of a place in this program, as the runtime writes it.
std::string RuntimePlace(const ProbedPlace& place) {
  return SelfName() + "+" + HexOffset(place.return_address - SelfLoadAddress());
}

// What it becomes.
std::string SourcePlace(const ProbedPlace& place, const std::string& function) {
  return "replay_reason_text_test.cpp:" + std::to_string(place.line) + " (" + function + ")";
}

// A clip listing this program and a library that is not there.
pecan::proto::Clip ClipOfSelf() {
  pecan::proto::Clip clip;
  auto* self = clip.add_modules();
  self->set_id(1);
  self->set_path(SelfPath());
  auto* gone = clip.add_modules();
  gone->set_id(2);
  gone->set_path("/nonexistent/libgone.so");
  return clip;
}

}  // namespace

using pecan::cli::ReasonPlaces;
using pecan::cli::SymbolizedPlaces;

TEST_CASE("the runtime's places become file:line (function), each of them", "[replay][reason]") {
  ReasonPlaces places(ClipOfSelf(), pecan::proto::Verdict{});
  const ProbedPlace first = reason_text_first_place();
  const ProbedPlace second = reason_text_second_place();
  const std::string read = RuntimePlace(first);
  const std::string write = RuntimePlace(second);
  const std::string read_line = SourcePlace(first, "reason_text_first_place");
  const std::string write_line = SourcePlace(second, "reason_text_second_place");

  CHECK(SymbolizedPlaces("the anomaly formed at step 12 of 13: T2 read at " + read +
                             ", T1 write at " + write + " (the last of them was about to run)",
                         places) == "the anomaly formed at step 12 of 13: T2 read at " + read_line +
                                        ", T1 write at " + write_line +
                                        " (the last of them was about to run)");
  // A divergence: the step expected and the event seen.
  CHECK(SymbolizedPlaces(
            "T1 diverged at step 3 of 9: expected read at " + read + ", saw write at " + write,
            places) == "T1 diverged at step 3 of 9: expected read at " + read_line +
                           ", saw write at " + write_line);
  // Whatever punctuation is around them.
  CHECK(SymbolizedPlaces("(" + read + "), " + write + ".", places) ==
        "(" + read_line + "), " + write_line + ".");
  CHECK(SymbolizedPlaces(read, places) == read_line);
}

TEST_CASE("places no module's debug info resolves stay as the runtime wrote them",
          "[replay][reason]") {
  ReasonPlaces places(ClipOfSelf(), pecan::proto::Verdict{});
  const ProbedPlace first = reason_text_first_place();
  const std::string read_line = SourcePlace(first, "reason_text_first_place");

  // A module the clip does not list, and one it lists that is not there.
  CHECK(SymbolizedPlaces("saw read at libc.so.6+0x8f2a1", places) ==
        "saw read at libc.so.6+0x8f2a1");
  CHECK(SymbolizedPlaces("at libgone.so+0x10, then " + RuntimePlace(first), places) ==
        "at libgone.so+0x10, then " + read_line);
  // An offset past the end of this program: no line there.
  const std::string past_end = SelfName() + "+0x7ffffff0";
  CHECK(SymbolizedPlaces("expected lock at " + past_end, places) == "expected lock at " + past_end);
  // Outside every module, and a step of an imported (STD) trace.
  CHECK(SymbolizedPlaces("saw write at 0x7f12, expected loc 0x22", places) ==
        "saw write at 0x7f12, expected loc 0x22");
}

TEST_CASE("a module without debug info keeps its places as offsets", "[replay][reason]") {
  const std::string stripped = (std::filesystem::temp_directory_path() /
                                ("pecan-reason-stripped-" + std::to_string(getpid())))
                                   .string();
  const std::string command = "objcopy --strip-debug '" + SelfPath() + "' '" + stripped + "'";
  REQUIRE(std::system(command.c_str()) == 0);
  pecan::proto::Clip clip;
  clip.add_modules()->set_path(stripped);
  ReasonPlaces places(clip, pecan::proto::Verdict{});

  const ProbedPlace first = reason_text_first_place();
  const std::string place = std::filesystem::path(stripped).filename().string() + "+" +
                            HexOffset(first.return_address - SelfLoadAddress());
  CHECK(SymbolizedPlaces("T2 read at " + place, places) == "T2 read at " + place);
  std::filesystem::remove(stripped);
}

TEST_CASE("a +0x that is not a place is not touched", "[replay][reason]") {
  ReasonPlaces places(ClipOfSelf(), pecan::proto::Verdict{});
  const std::string name = SelfName();
  const std::vector<std::string> texts = {"T1 touched 0x7000+8, T2 touched 0x7004+0x4",
                                          "a +0x10 b",
                                          "sum " + name + "+0x",
                                          name + "+0x1000g",
                                          name + "+0x1000_x",
                                          name + "+0x" + std::string(17, '1'),
                                          ""};
  for (const std::string& text : texts) CHECK(SymbolizedPlaces(text, places) == text);
}

TEST_CASE("a module only the verdict names is known too", "[replay][reason]") {
  pecan::proto::Verdict verdict;
  verdict.mutable_failure_site()->set_module(SelfPath());
  ReasonPlaces places(pecan::proto::Clip{}, verdict);
  const ProbedPlace second = reason_text_second_place();
  CHECK(SymbolizedPlaces("then T1 blocked at " + RuntimePlace(second), places) ==
        "then T1 blocked at " + SourcePlace(second, "reason_text_second_place"));
}
