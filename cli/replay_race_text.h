// The real races of a racefuzzer run (proto Verdict.races) as JSON and as a line of text, with
// code places symbolized and static variables named.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "proto/report.pb.h"

namespace pecan::cli {

// [{"first": ACCESS, "second": ACCESS}], ACCESS = {"thread", "kind", "site": {"text", "file",
// "line", "function"}, "variable" (or null), "address", "size"}; `first` ran first.
nlohmann::json RealRacesJson(const proto::Verdict& verdict);

// "T1 read `x` (fig2.c:20), then T2 write (fig2.c:30)" for the first race; "" when none.
std::string FirstRealRaceText(const proto::Verdict& verdict);

}  // namespace pecan::cli
