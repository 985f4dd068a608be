// VerdictFile: serialize, write to "<path>.tmp.<pid>", rename.
#include "replayer/verdict_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace pecan::replay {

bool VerdictFile::Write(const proto::Verdict& verdict) const {
  if (path_.empty()) return false;
  std::string bytes;
  if (!verdict.SerializeToString(&bytes)) return false;
  const std::string temporary = path_ + ".tmp." + std::to_string(getpid());
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) {
      close(fd);
      unlink(temporary.c_str());
      return false;
    }
    written += static_cast<size_t>(n);
  }
  close(fd);
  if (std::rename(temporary.c_str(), path_.c_str()) != 0) {
    unlink(temporary.c_str());
    return false;
  }
  return true;
}

bool ReadVerdictFile(const std::string& path, proto::Verdict& verdict) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return verdict.ParseFromString(bytes.str());
}

}  // namespace pecan::replay
