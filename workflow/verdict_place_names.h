// Names for the places a replay verdict holds (module + offset, written by the runtime after
// which the process is gone): file:line of code, the variable of a static object.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "analyzer/symbolizer.h"
#include "proto/report.pb.h"
#include "trace_format/trace.h"

namespace pecan::workflow {

// The places' modules as a Trace: each module at a made-up load address of its own, so a
// static object's offset names one module's symbol. The analyzer's Symbolizer reads it like a
// recorded trace.
class PlaceNames {
 public:
  // Knows the modules of every place in the verdict (stuck threads, failure site, real races).
  explicit PlaceNames(const proto::Verdict& verdict);

  // "abba.c:13" (or "module+0x..." without debug info); "" for no place.
  std::string Code(const proto::Place& place);
  SourceLocation Source(const proto::Place& place);
  // "`counter`" for a static object, else its address.
  std::string Object(const proto::Place& place);
  // The static object's name, without quotes; nothing when the place is not one.
  std::optional<std::string> ObjectName(const proto::Place& place);

 private:
  static uint64_t LoadAddressOf(uint32_t module) { return uint64_t{module} << 40; }
  std::optional<uint32_t> Module(const proto::Place& place);

  Trace trace_;
  std::map<std::string, uint32_t> ids_;  // module path -> id in trace_
  std::optional<Symbolizer> symbolizer_;
};

std::string BaseName(const std::string& path);
std::string Hex(uint64_t value);

}  // namespace pecan::workflow
