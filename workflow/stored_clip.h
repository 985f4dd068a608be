// A clip triage keeps for later, in a file: each clip is written as soon as it is made, so a
// triage of many findings holds none of them in memory, only their files' paths and the program
// each replays (which triage needs without reading the file).
#pragma once

#include <memory>
#include <string>

#include "proto/clip.pb.h"

namespace pecan::workflow {

class StoredClip {
 public:
  // Writes `clip` to a new file in the directory `dir`; the file is removed with the last
  // reference. Throws PecanError when it cannot be written.
  static std::shared_ptr<const StoredClip> Spill(const proto::Clip& clip, const std::string& dir);
  // A clip file that stays where it is (a triage state's clips/ID.clip), recording `program`.
  static std::shared_ptr<const StoredClip> Existing(const std::string& path,
                                                    const std::string& program);

  ~StoredClip();
  StoredClip(const StoredClip&) = delete;
  StoredClip& operator=(const StoredClip&) = delete;

  const std::string& path() const { return path_; }
  const std::string& program() const { return program_; }

 private:
  StoredClip(std::string path, std::string program, bool owned)
      : path_(std::move(path)), program_(std::move(program)), owned_(owned) {}

  std::string path_;
  std::string program_;
  bool owned_;  // a spilled file, removed with this
};

// A directory for spilled clips: made inside `parent` (hidden, with a unique name), removed with
// everything in it. Such directories found in `parent` (left by an interrupted run) are removed
// first.
class ClipSpillDirectory {
 public:
  static constexpr const char* kPrefix = ".pecan-clips-";
  explicit ClipSpillDirectory(const std::string& parent);  // throws PecanError
  ~ClipSpillDirectory();
  ClipSpillDirectory(const ClipSpillDirectory&) = delete;
  ClipSpillDirectory& operator=(const ClipSpillDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace pecan::workflow
