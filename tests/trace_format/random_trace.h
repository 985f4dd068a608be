// Random traces for the trace-format tests: every event kind, many threads, sites, modules and
// names, with addresses and flags drawn to exercise every column of the encoding.
#pragma once

#include <cstdint>
#include <string>

#include "trace_format/trace.h"

namespace pecan::testing {

struct RandomTraceShape {
  size_t events = 1000;
  size_t threads = 8;
  size_t sites = 50;
  uint64_t one_in_with_repeats = 6;  // events with left-out repeats before them (0: none)
};

Trace MakeRandomTrace(uint64_t seed, const RandomTraceShape& shape = {});

// A file path in the test's temporary directory, removed by the destructor.
class TempFile {
 public:
  explicit TempFile(const std::string& name);
  ~TempFile();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadFileBytes(const std::string& path);
void WriteFileBytes(const std::string& path, const std::string& bytes);

}  // namespace pecan::testing
