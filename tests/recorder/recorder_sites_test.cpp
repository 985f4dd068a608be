// Sites map to the right module: the executable, a linked instrumented library and a plugin
// dlopen()ed during the run, each with its path, load address and build-id.
#include <catch2/catch.hpp>

#include "run_program.h"
#include "trace_checks.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {
namespace {

const ModuleInfo* ModuleOf(const Trace& trace, SiteId site) {
  for (const ModuleInfo& module : trace.modules) {
    if (module.id == trace.sites[site].module) return &module;
  }
  return nullptr;
}

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The one WRITE to `global`: its module's path ends with `module_suffix`, and module load
// address + site offset lies inside `function` (within its first 64 bytes).
void CheckWriteSite(const Trace& trace, const ProgramResult& out, const std::string& global,
                    const std::string& function, const std::string& module_suffix) {
  auto writes = EventsOf(trace, EventKind::kWrite, out.Address(global));
  REQUIRE(writes.size() >= 1);
  const ModuleInfo* module = ModuleOf(trace, trace.site[writes[0]]);
  REQUIRE(module != nullptr);
  CHECK(EndsWith(module->path, module_suffix));
  CHECK(!module->build_id.empty());
  const uint64_t pc = module->load_address + trace.sites[trace.site[writes[0]]].offset;
  const uint64_t entry = out.Address(function);
  CHECK(pc > entry);
  CHECK(pc < entry + 64);
}

}  // namespace

TEST_CASE("sites are module + offset in the executable, a library and a dlopen()ed plugin",
          "[recorder]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      const std::string plugin =
          std::string(PECAN_RT_TEST_PROGRAM_DIR) + "/libplugin.so." + compiler;
      RecordedRun run = RunRecorded(Program("sites_main", compiler), {plugin}, "sites_" + compiler);
      REQUIRE(run.result.exited);
      REQUIRE(run.result.exit_status == 0);
      Trace trace = ReadTrace(run.trace_path);
      CHECK(CheckAll(trace).empty());
      CheckWriteSite(trace, run.result, "main_global", "main_touch", "/sites_main." + compiler);
      CheckWriteSite(trace, run.result, "lib_global", "lib_touch", "/libsites.so." + compiler);
      CheckWriteSite(trace, run.result, "plugin_global", "plugin_touch",
                     "/libplugin.so." + compiler);
      CHECK(
          ModuleOf(
              trace,
              trace.site[EventsOf(trace, EventKind::kWrite, run.result.Address("main_global"))[0]])
              ->path == trace.meta.program);
    }
  }
}

}  // namespace pecan::rt_test
