// Trace file kind detection by magic, extension and first line.
#include "trace_format/file_kind.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "trace_format/error.h"
#include "trace_format/record_framing.h"

namespace pecan {

std::string ReadFirstBytes(const std::string& path, size_t count) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PecanError(path + ": cannot open: " + std::strerror(errno));
  std::string bytes(count, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(count));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

TraceFileKind DetectTraceFileKind(const std::string& path) {
  std::string head = ReadFirstBytes(path, 4096);
  if (head.size() >= sizeof framing::kMagic &&
      std::memcmp(head.data(), framing::kMagic, sizeof framing::kMagic) == 0)
    return TraceFileKind::kPecan;
  auto ends_with = [&path](const char* suffix) {
    size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  if (ends_with(".pecan")) return TraceFileKind::kPecan;
  if (ends_with(".std") || ends_with(".txt")) return TraceFileKind::kStd;
  if (head.empty()) return TraceFileKind::kPecan;  // the reader says "empty file"
  size_t pos = 0;
  while (pos < head.size()) {
    size_t end = head.find('\n', pos);
    if (end == std::string::npos) end = head.size();
    std::string line = head.substr(pos, end - pos);
    pos = end + 1;
    if (line.find('\0') != std::string::npos) return TraceFileKind::kPecan;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    size_t bar1 = line.find('|');
    size_t bar2 = bar1 == std::string::npos ? bar1 : line.find('|', bar1 + 1);
    return bar2 != std::string::npos ? TraceFileKind::kStd : TraceFileKind::kPecan;
  }
  return TraceFileKind::kStd;
}

}  // namespace pecan
