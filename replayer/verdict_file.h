// Writes the replay's verdict (pecan.proto.Verdict) to PECAN_VERDICT, replacing the file
// atomically each time, so the parent always reads a complete verdict whenever the run ends.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace pecan::replay {

class VerdictFile {
 public:
  explicit VerdictFile(std::string path) : path_(std::move(path)) {}

  // Writes `verdict` to a temporary file beside the target and renames it over the target.
  // Returns false (and leaves the old verdict) when the file cannot be written.
  bool Write(const proto::Verdict& verdict) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Reads a verdict file; false when it is missing or unreadable.
bool ReadVerdictFile(const std::string& path, proto::Verdict& verdict);

}  // namespace pecan::replay
