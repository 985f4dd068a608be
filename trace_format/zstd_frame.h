// Decompressing one zstd frame read from a file (a .pecan chunk, a .clip payload), under the one
// bounded-allocation rule every reader follows: never allocate more than the input could hold.
#pragma once

#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace pecan {

// A zstd block decodes to at most 128 KiB (the format's Block_Maximum_Size) and takes at least
// 3 bytes (its header), so a frame of C bytes cannot decode to more than this many bytes per
// compressed byte. A declared content size above that is a lie: refused before allocating.
inline constexpr uint64_t kZstdMaxBlockBytes = 128 * 1024;
inline constexpr uint64_t kZstdMinBlockHeaderBytes = 3;

// The most bytes `compressed_bytes` of zstd frame can decode to.
uint64_t ZstdDecodedBound(uint64_t compressed_bytes);

// Decompresses `data`, which must be exactly one zstd frame that declares its content size, into
// `out` (resized to that size). The size is checked against `cap` (the reader's absolute limit)
// and ZstdDecodedBound before anything is allocated. Returns "" on success, else what is wrong,
// for the caller to put after the file and offset. `dctx` may be null (a context is made).
std::string DecompressZstdFrame(ZSTD_DCtx* dctx, const void* data, size_t size, uint64_t cap,
                                std::string& out);

}  // namespace pecan
