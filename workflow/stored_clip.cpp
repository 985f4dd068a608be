#include "workflow/stored_clip.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "trace_format/clip_file.h"
#include "trace_format/error.h"

namespace pecan::workflow {

namespace fs = std::filesystem;

std::shared_ptr<const StoredClip> StoredClip::Spill(const proto::Clip& clip,
                                                    const std::string& dir) {
  static std::atomic<uint64_t> next{0};
  const std::string path = (fs::path(dir) / (std::to_string(next++) + ".clip")).string();
  WriteClipFile(path, clip);
  return std::shared_ptr<const StoredClip>(new StoredClip(path, clip.program(), true));
}

std::shared_ptr<const StoredClip> StoredClip::Existing(const std::string& path,
                                                       const std::string& program) {
  return std::shared_ptr<const StoredClip>(new StoredClip(path, program, false));
}

StoredClip::~StoredClip() {
  if (!owned_) return;
  std::error_code ignored;  // a spill directory removed already took the file with it
  fs::remove(path_, ignored);
}

ClipSpillDirectory::ClipSpillDirectory(const std::string& parent) {
  // One that an interrupted run left (its destructor never ran) goes first.
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(parent, error)) {
    if (entry.path().filename().string().rfind(kPrefix, 0) == 0) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
  std::string name = (fs::path(parent) / (std::string(kPrefix) + "XXXXXX")).string();
  if (mkdtemp(name.data()) == nullptr)
    throw PecanError(name + ": cannot create a directory for clips: " + std::strerror(errno));
  path_ = name;
}

ClipSpillDirectory::~ClipSpillDirectory() {
  std::error_code ignored;  // nothing to report from a destructor; the directory is hidden
  fs::remove_all(path_, ignored);
}

}  // namespace pecan::workflow
