// Tells what kind of file a path holds — a .pecan trace (by its magic), STD text, or something
// else — so commands accept either trace format without being told.
#pragma once

#include <string>

namespace pecan {

// kOther is no longer returned (a file that is neither is handed to the .pecan reader); it
// stays so that callers' switch statements keep compiling.
enum class TraceFileKind { kPecan, kStd, kOther };

// STD when the file does not start with the trace magic and either its name ends in .std or
// .txt, or its first non-blank, non-comment line has the THREAD|OP|LOCATION shape (a file of
// comments only is an empty STD trace). Everything else — the magic, a name ending in .pecan,
// or foreign bytes — is kPecan: TraceReader then either reads it or names the file and the byte
// offset where it stops being a trace, the one error issue 2 asks for. Throws PecanError when
// the file cannot be opened.
TraceFileKind DetectTraceFileKind(const std::string& path);

// The first `count` bytes of a file (fewer if it is shorter); throws PecanError on failure.
std::string ReadFirstBytes(const std::string& path, size_t count);

}  // namespace pecan
