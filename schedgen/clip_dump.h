// Prints a clip for people and tools: `pecan dump CLIP --format text|std|json [--strict-std]`.
// The printing lives here; the dump command (cli/dump_command.cpp) recognizes clips and calls it.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "proto/clip.pb.h"

namespace pecan {

// Formats:
//   text  a header (finding, trace hash, program, generator, counts) and one line per step:
//         step, thread, kind, site, the trace event it came from, "moved", "anomaly k/n",
//         and the site's source line and function when the recorded module can be read.
//   std   the schedule as an STD trace, one event per line in schedule order; each anomaly
//         event is preceded by a comment line "# anomaly k/n" (the STD importer ignores whole
//         comment lines; a trailing comment would become part of the location). Clips store
//         no target addresses except the anomaly events', so other targets print as "?" —
//         the output is for reading, not for analysis. Locations: the STD location for
//         module-less sites, else the site id (as `pecan convert` writes recorded traces).
//         Steps STD cannot express, and those needing a count the clip does not keep
//         (barriers, alloc/free), are comment lines. With `strict_std`, so are pecan's
//         extensions (thread begin/end, enter/exit, atomics, waits, ...): what remains is
//         plain STD (r, w, acq, rel, fork, join) that a strict STD reader accepts.
//   json  JSON lines: one {"type":"clip"} object with everything but the steps, then one
//         {"type":"step"} object per step.
// Throws PecanError for an unknown format.
void DumpClip(const proto::Clip& clip, const std::string& format, std::ostream& out,
              bool strict_std = false);

// Reads the clip at `path` (ReadClipFile) and prints it to standard output. Returns 0.
int DumpClip(const std::string& path, const std::string& format, bool strict_std = false);

// Whether a file starting with `first_bytes` is a clip (its magic, trace_format/clip_file.h).
bool IsClipHeader(std::string_view first_bytes);

}  // namespace pecan
