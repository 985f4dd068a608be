// `pecan replay`'s checks before anything runs: the program exists, loads pecan's runtime and
// is the recorded build (ELF build-id), and the clip is one of a recorded run at all.
#pragma once

#include <string>
#include <vector>

#include "proto/clip.pb.h"

namespace pecan::cli {

// The executable `program` names: a path as given (it must be an executable file), else the
// first match in PATH. Throws PecanError naming the problem.
std::string FindProgram(const std::string& program);

// Refuses, with a PecanError naming `clip_path`: a clip made from an imported STD trace (it
// lists no module: there is no recorded program to run), a program that does not load
// libpecan_rt.so (unless LD_PRELOAD is set), and a program whose build-id (or, without build-ids,
// file name) is not the recorded one. `given` is the program as the user typed it, `program` where
// FindProgram found it.
void CheckProgramMatchesClip(const std::string& clip_path, const std::string& given,
                             const std::string& program, const proto::Clip& clip);

// Libraries the clip's sites live in that have changed on disk since the recording: replay of
// steps in them would diverge, so the user hears about it first.
std::vector<std::string> ChangedLibraries(const proto::Clip& clip);

}  // namespace pecan::cli
