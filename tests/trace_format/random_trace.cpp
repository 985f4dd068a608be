// Random traces and temporary files for the trace-format tests.
#include "random_trace.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace pecan::testing {

Trace MakeRandomTrace(uint64_t seed, const RandomTraceShape& shape) {
  std::mt19937_64 rng(seed);
  auto pick = [&rng](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  Trace t;
  t.meta.producer = "random-test";
  t.meta.program = "/bin/test-program";
  t.meta.args = {"--flag", "value with spaces", ""};
  t.meta.pid = static_cast<uint32_t>(pick(1u << 20));
  t.meta.start_unix_ns = static_cast<int64_t>(pick(uint64_t{1} << 62));
  t.meta.settings = RecorderSettingsInfo{1024, 3, true, false, "stop", true};
  t.meta.exit = ProgramExitInfo{true, true, 3, 0};
  t.meta.dropped_events = pick(3);
  t.modules = {ModuleInfo{1, "/bin/test-program", 0x400000, std::string("\x01\x00\xff", 3)},
               ModuleInfo{2, "/lib/libc.so.6", 0x7f0000000000, ""}};
  for (size_t i = 0; i < shape.threads; ++i) {
    ThreadInfo info;
    if (i > 0) info.parent = static_cast<ThreadId>(pick(i));
    info.ordinal = static_cast<uint32_t>(pick(4));
    info.name = "T" + std::to_string(i);
    t.threads.push_back(info);
  }
  for (size_t i = 0; i < shape.sites; ++i)
    t.sites.push_back(SiteInfo{static_cast<uint32_t>(pick(3)), pick(1u << 24)});
  t.names = {AddressName{0x601040, 64, "table"}, AddressName{0x601080, 8, "counter"}};

  // Addresses come from a few arrays walked with a stride, a few globals, and rare wild values.
  std::vector<uint64_t> cursor(shape.threads, 0x10000);
  for (size_t i = 0; i < shape.events; ++i) {
    Event e;
    e.thread = static_cast<ThreadId>(pick(shape.threads));
    e.kind = static_cast<EventKind>(pick(kEventKindCount));
    switch (pick(4)) {
      case 0:
        e.addr = cursor[e.thread] += 8;
        break;
      case 1:
        e.addr = 0x601040 + 8 * pick(8);
        break;
      case 2:
        e.addr = pick(UINT64_MAX);
        break;
      default:
        e.addr = 0;
        break;
    }
    e.size = pick(5) == 0 ? static_cast<uint32_t>(pick(UINT32_MAX)) : 1u << pick(4);
    e.flags = pick(3) == 0 ? static_cast<uint8_t>(pick(256)) : 0;
    e.site = static_cast<SiteId>(pick(shape.sites));
    if (shape.one_in_with_repeats != 0 && pick(shape.one_in_with_repeats) == 0)
      e.repeats_before = static_cast<uint16_t>(1 + pick(pick(2) == 0 ? 3 : UINT16_MAX));
    t.push_back(e);
  }
  return t;
}

// Many tests write thousands of small files: a RAM-backed directory keeps them fast. TMPDIR,
// when set, wins.
std::filesystem::path TestDirectory() {
  if (std::getenv("TMPDIR") == nullptr && std::filesystem::is_directory("/dev/shm") &&
      ::access("/dev/shm", W_OK) == 0)
    return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

TempFile::TempFile(const std::string& name) {
  static int counter = 0;
  path_ = (TestDirectory() / ("pecan-fmt-test-" + std::to_string(::getpid()) + "-" +
                              std::to_string(counter++) + "-" + name))
              .string();
}

TempFile::~TempFile() {
  std::remove(path_.c_str());
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace pecan::testing
