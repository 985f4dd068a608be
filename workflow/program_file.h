// What a program's ELF file says about how it was built: whether it loads pecan's runtime (or
// ThreadSanitizer's), calls the instrumentation at all, and its GNU build-id.
#pragma once

#include <string>

namespace pecan::workflow {

inline constexpr const char* kRuntimeLibrary = "libpecan_rt.so";

struct ProgramFile {
  bool is_elf = false;
  bool loads_runtime = false;          // DT_NEEDED names libpecan_rt.so
  bool loads_tsan_runtime = false;     // DT_NEEDED names libtsan.so.*
  bool calls_instrumentation = false;  // defines or calls __tsan_init (-fsanitize=thread code)
  std::string build_id;                // raw bytes of the GNU build-id note; empty without one
};

// Reads `path` with libelf; a file that cannot be read or is not ELF gives is_elf == false.
ProgramFile InspectProgramFile(const std::string& path);

// Whether LD_PRELOAD brings libpecan_rt.so into a program that does not link it.
bool RuntimePreloaded();

}  // namespace pecan::workflow
