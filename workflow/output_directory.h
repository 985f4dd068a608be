// The output directory of hunt and triage (-o): pecan replaces or removes there only files it
// wrote itself, listed in DIR/.pecan-outputs; anyone else's file where pecan must write stops it.
#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "trace_format/error.h"

namespace pecan::workflow {

class OutputDirectory {
 public:
  // The list of what pecan wrote: one "<command>\t<path relative to DIR>" per line.
  static constexpr const char* kManifest = ".pecan-outputs";

  // Creates `dir` when missing and checks, before the command starts work, that pecan may write
  // `files` there (paths relative to it; "clips/" names a subdirectory): each one absent or
  // written by pecan. Then removes what an earlier run of the same `command` wrote, so nothing
  // stale is mistaken for new. Throws PecanError("<command>: ...") naming the path and cause.
  OutputDirectory(const std::string& dir, const std::string& command,
                  const std::vector<std::string>& files);

  const std::string& path() const { return dir_; }

  // The path of `relative` in the directory, listed as pecan's before anything is written to it.
  // Throws PecanError when a file pecan did not write is there, or the list cannot be written.
  std::string Claim(const std::string& relative);

 private:
  std::string ManifestPath() const { return (std::filesystem::path(dir_) / kManifest).string(); }

  PecanError NotOurs(const std::string& relative) const;

  PecanError CannotWrite(const std::string& path) const;

  void ReadManifest();

  // Replaces the list at once (a new file renamed over it): it also proves DIR is writable.
  void WriteManifest();

  std::string dir_;
  std::string command_;
  std::map<std::string, std::string> written_;  // relative path -> the command that wrote it
  std::mutex mutex_;
};

}  // namespace pecan::workflow
