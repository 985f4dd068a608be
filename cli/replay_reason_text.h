// The runtime's replay texts (reason, divergence) name code as "module+0xOFFSET": it runs inside
// the replayed process and cannot symbolize. Here each such place becomes "file:line (function)".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "proto/clip.pb.h"
#include "proto/report.pb.h"
#include "workflow/verdict_place_names.h"

namespace pecan::cli {

// The modules a replay's texts can name, by the file name the runtime writes (the base name of
// the module's path: replayer/replay_schedule.cpp, recorder/replay_bridge.cpp).
class ReasonPlaces {
 public:
  // The clip's modules first, then the verdict's (a library only the run loaded). Of two modules
  // with one file name, the first counts.
  ReasonPlaces(const proto::Clip& clip, const proto::Verdict& verdict);

  // "lost_update.c:23 (add_batch)" for `offset` in the module named `module_name`; nothing when
  // no module has that name or its debug info has no line there.
  std::optional<std::string> Code(const std::string& module_name, uint64_t offset);

 private:
  std::map<std::string, proto::Place> modules_;  // file name -> the module's path and build-id
  workflow::PlaceNames names_;
};

// `text` with every "name+0xOFFSET" that `places` resolves replaced by its "file:line
// (function)"; the rest (unknown modules, offsets without line info) as it was.
std::string SymbolizedPlaces(const std::string& text, ReasonPlaces& places);

}  // namespace pecan::cli
