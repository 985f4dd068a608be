// Writing an output file so that a failure (a full disk, say) leaves no empty or partial file:
// the bytes go to a temporary file beside it, renamed into place only once all are written.
#pragma once

#include <string>

namespace pecan {

class OutputFile {
 public:
  // Nothing is created yet: the caller writes temp_path(), then calls Commit().
  explicit OutputFile(std::string path);
  // Removes the temporary file unless Commit() succeeded.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

  // Flushes the temporary file to disk and renames it to path(). Throws PecanError naming
  // path() and the cause (strerror) when that fails; the temporary file is then removed.
  void Commit();

  // `message` with the temporary file's name replaced by path(), for errors raised by code that
  // wrote temp_path() and so named it.
  std::string InUserTerms(const std::string& message) const;

 private:
  std::string path_;
  std::string temp_path_;
  bool committed_ = false;
  bool direct_ = false;  // path() is not a regular file: written in place
};

// Writes `bytes` to `path` through an OutputFile. Throws PecanError naming `path` and the cause.
void WriteOutputFile(const std::string& path, const std::string& bytes);

}  // namespace pecan
