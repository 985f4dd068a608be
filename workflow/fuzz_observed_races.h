// The races (and atomicity violations) a fuzz run observed, as fuzz.json's `races` of each run:
// every access with its thread, kind, site (text, file, line, function, and module + offset so
// `pecan heal` and the noise strategy's focus find the instruction again in a later run of the
// same build), variable and size.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/happens_before_races.h"
#include "analyzer/symbolizer.h"
#include "trace_format/event_kind.h"
#include "trace_format/trace.h"

namespace pecan::workflow {

// The module file and offset of `site_id`, or an empty path when the trace does not know it.
std::pair<std::string, uint64_t> ModuleOffsetOf(const Trace& trace, SiteId site_id);

void AddModuleOffset(const Trace& trace, SiteId site_id, nlohmann::json& site);

std::string ThreadLabel(const Trace& trace, ThreadId t);

// One access of an observed race: `site` is a site of `trace`.
nlohmann::json ObservedAccessJson(const Trace& trace, Symbolizer& symbolizer,
                                  const std::string& thread, EventKind kind, SiteId site_id,
                                  uint64_t address, uint64_t size);

// The happens-before races of a recorded run (DrFinder).
nlohmann::json ObservedRacesJson(const Trace& trace, const std::vector<HappensBeforeRace>& races);

}  // namespace pecan::workflow
