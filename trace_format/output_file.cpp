// OutputFile: write to "<path>.tmp-<pid>", fsync, rename; remove on any failure.
#include "trace_format/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "trace_format/error.h"

namespace pecan {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  // A device or a pipe (/dev/null, /dev/stdout) is written in place: renaming over it would
  // replace it.
  struct stat st;
  direct_ = ::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  temp_path_ = direct_ ? path_ : path_ + ".tmp-" + std::to_string(::getpid());
}

OutputFile::~OutputFile() {
  if (!committed_ && !direct_) ::unlink(temp_path_.c_str());
}

void OutputFile::Commit() {
  if (direct_) {
    committed_ = true;
    return;
  }
  const int fd = ::open(temp_path_.c_str(), O_RDONLY | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  const int sync_error = errno;
  if (fd >= 0) ::close(fd);
  if (!synced) {
    ::unlink(temp_path_.c_str());
    throw PecanError(path_ + ": cannot write: " + std::strerror(sync_error));
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int rename_error = errno;
    ::unlink(temp_path_.c_str());
    throw PecanError(path_ + ": cannot write: " + std::strerror(rename_error));
  }
  committed_ = true;
}

std::string OutputFile::InUserTerms(const std::string& message) const {
  std::string out = message;
  for (size_t at = out.find(temp_path_); at != std::string::npos;
       at = out.find(temp_path_, at + path_.size()))
    out.replace(at, temp_path_.size(), path_);
  return out;
}

void WriteOutputFile(const std::string& path, const std::string& bytes) {
  OutputFile output(path);
  std::FILE* file = std::fopen(output.temp_path().c_str(), "wb");
  if (!file) throw PecanError(path + ": cannot create: " + std::strerror(errno));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const int write_error = errno;
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed)
    throw PecanError(path + ": cannot write: " + std::strerror(written ? errno : write_error));
  output.Commit();
}

}  // namespace pecan
