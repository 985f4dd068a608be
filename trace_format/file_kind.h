// Tells what kind of file a path holds — a .pecan trace (by its magic), STD text, or something
// else — so commands accept either trace format without being told.
#pragma once

#include <string>

namespace pecan {

enum class TraceFileKind { kPecan, kStd, kOther };

// A .pecan trace when the file starts with the trace magic. Otherwise STD when the name ends
// in .std or .txt, or when the first non-blank, non-comment line has the THREAD|OP|LOCATION
// shape. Throws PecanError when the file cannot be opened.
TraceFileKind DetectTraceFileKind(const std::string& path);

// The first `count` bytes of a file (fewer if it is shorter); throws PecanError on failure.
std::string ReadFirstBytes(const std::string& path, size_t count);

}  // namespace pecan
