// Symbolizer tests on this very test program: a site taken from a call in this file must come
// back as this file, that line and that function; a global's address as the global's name.
#include <link.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "analyzer/symbolizer.h"
#include "trace_format/log.h"

namespace tooling_test {
long symbolizer_table[4];
}
// A C global whose name is also an Itanium type code ("y" = unsigned long long).
extern "C" {
long y;
}

namespace {

struct ProbedSite {
  uint64_t return_address;
  uint32_t line;
};

__attribute__((noinline)) uint64_t ReturnAddressOfThisCall() {
  return reinterpret_cast<uint64_t>(__builtin_return_address(0));
}

// The call below is the "instrumented access": its return address is what a recorder stores.
__attribute__((noinline)) ProbedSite ProbeSymbolizerSite() {
  ProbedSite site{ReturnAddressOfThisCall(), __LINE__};
  return site;
}

std::string SelfPath() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

// The load address (bias) of the main program, as a recorder reads it from dl_iterate_phdr.
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

constexpr uint32_t kSelfModule = 1;
constexpr uint32_t kMissingModule = 2;

// A trace naming this program as module 1 and a file that does not exist as module 2.
pecan::Trace TraceOfSelf(const std::string& module_path, const std::string& build_id = {}) {
  pecan::Trace trace;
  trace.modules.push_back(pecan::ModuleInfo{kSelfModule, module_path, SelfLoadAddress(), build_id});
  trace.modules.push_back(
      pecan::ModuleInfo{kMissingModule, "/nonexistent/libgone.so", 0x7f0000000000, {}});
  return trace;
}

}  // namespace

TEST_CASE("symbolizer resolves a site of this program to its file, line and function",
          "[symbolizer]") {
  ProbedSite probe = ProbeSymbolizerSite();
  pecan::Trace trace = TraceOfSelf(SelfPath());
  trace.sites.push_back(pecan::SiteInfo{kSelfModule, probe.return_address - SelfLoadAddress()});
  pecan::Symbolizer symbolizer(trace);

  pecan::SourceLocation location = symbolizer.Resolve(0);
  CHECK(std::filesystem::path(location.file).filename() == "symbolizer_test.cpp");
  CHECK(location.line == probe.line);
  CHECK_THAT(location.function, Catch::Contains("ProbeSymbolizerSite"));
  CHECK_THAT(symbolizer.Describe(0),
             Catch::StartsWith(location.file + ":" + std::to_string(probe.line) + " (") &&
                 Catch::Contains("ProbeSymbolizerSite"));
}

TEST_CASE("symbolizer names globals from the symbol table and STD names from the trace",
          "[symbolizer]") {
  pecan::Trace trace = TraceOfSelf(SelfPath());
  trace.names.push_back(pecan::AddressName{0x1000, 8, "V1"});
  trace.names.push_back(pecan::AddressName{0x2000, 0, "L3"});
  pecan::Symbolizer symbolizer(trace);

  auto table = reinterpret_cast<uint64_t>(&tooling_test::symbolizer_table[0]);
  CHECK(symbolizer.NameOfAddress(table) == "tooling_test::symbolizer_table");
  CHECK(symbolizer.NameOfAddress(table + 2 * sizeof(long)) == "tooling_test::symbolizer_table+16");
  CHECK(symbolizer.NameOfAddress(reinterpret_cast<uint64_t>(&y)) == "y");
  CHECK(symbolizer.NameOfAddress(0x1000) == "V1");
  CHECK(symbolizer.NameOfAddress(0x1004) == "V1+4");
  CHECK(symbolizer.NameOfAddress(0x2000) == "L3");
  CHECK_FALSE(symbolizer.NameOfAddress(0x2001).has_value());

  auto* heap = static_cast<long*>(std::malloc(sizeof(long)));
  CHECK_FALSE(symbolizer.NameOfAddress(reinterpret_cast<uint64_t>(heap)).has_value());
  std::free(heap);
}

TEST_CASE("symbolizer describes STD sites and sites it cannot resolve", "[symbolizer]") {
  pecan::Trace trace = TraceOfSelf(SelfPath());
  trace.sites.push_back(pecan::SiteInfo{pecan::kNoModule, 34});
  trace.sites.push_back(pecan::SiteInfo{kMissingModule, 0x10});
  trace.sites.push_back(pecan::SiteInfo{7, 0x20});  // a module the trace does not list
  pecan::Symbolizer symbolizer(trace);

  CHECK(symbolizer.Describe(0) == "loc 34");
  CHECK(symbolizer.Resolve(0).file.empty());
  CHECK(symbolizer.Describe(1) == "libgone.so+0x10");
  CHECK(symbolizer.Resolve(1).line == 0);
  CHECK(symbolizer.Describe(2) == "?+0x20");
  CHECK_THAT(symbolizer.Describe(3), Catch::Contains("not in the trace"));
  CHECK_FALSE(symbolizer.NameOfAddress(0x7f0000000010).has_value());
}

TEST_CASE("symbolizer leaves a rebuilt module unsymbolized and says why", "[symbolizer]") {
  ProbedSite probe = ProbeSymbolizerSite();
  pecan::Trace trace = TraceOfSelf(SelfPath(), "not the recorded build-id");
  trace.sites.push_back(pecan::SiteInfo{kSelfModule, probe.return_address - SelfLoadAddress()});
  pecan::ScopedWarningCapture warnings;
  pecan::Symbolizer symbolizer(trace);

  CHECK_THAT(symbolizer.Describe(0),
             Catch::StartsWith(std::filesystem::path(SelfPath()).filename().string() + "+0x"));
  REQUIRE(warnings.messages().size() == 1);
  CHECK_THAT(warnings.messages()[0], Catch::Contains("build-id differs"));
}

TEST_CASE("symbolizer falls back to module+offset for a stripped module", "[symbolizer]") {
  std::string stripped = (std::filesystem::temp_directory_path() /
                          ("pecan-symbolizer-stripped-" + std::to_string(getpid())))
                             .string();
  std::string command = "objcopy --strip-all '" + SelfPath() + "' '" + stripped + "'";
  REQUIRE(std::system(command.c_str()) == 0);

  ProbedSite probe = ProbeSymbolizerSite();
  uint64_t offset = probe.return_address - SelfLoadAddress();
  pecan::Trace trace = TraceOfSelf(stripped);
  trace.sites.push_back(pecan::SiteInfo{kSelfModule, offset});
  pecan::Symbolizer symbolizer(trace);

  CHECK(symbolizer.Resolve(0).file.empty());
  CHECK_THAT(symbolizer.Describe(0),
             Catch::StartsWith(std::filesystem::path(stripped).filename().string() + "+0x"));
  CHECK_FALSE(
      symbolizer.NameOfAddress(reinterpret_cast<uint64_t>(&tooling_test::symbolizer_table[1])));
  std::filesystem::remove(stripped);
}
