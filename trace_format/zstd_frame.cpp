// One zstd frame from a file, decoded only after its declared size is proven plausible.
#include "trace_format/zstd_frame.h"

namespace pecan {

uint64_t ZstdDecodedBound(uint64_t compressed_bytes) {
  return (compressed_bytes / kZstdMinBlockHeaderBytes + 1) * kZstdMaxBlockBytes;
}

std::string DecompressZstdFrame(ZSTD_DCtx* dctx, const void* data, size_t size, uint64_t cap,
                                std::string& out) {
  const unsigned long long declared = ZSTD_getFrameContentSize(data, size);
  if (declared == ZSTD_CONTENTSIZE_ERROR || declared == ZSTD_CONTENTSIZE_UNKNOWN)
    return "not a zstd frame with a known size";
  if (ZSTD_findFrameCompressedSize(data, size) != size) return "not exactly one zstd frame";
  if (declared > cap || declared > ZstdDecodedBound(size)) {
    return "implausible decoded size " + std::to_string(declared) + " for " + std::to_string(size) +
           " compressed bytes";
  }
  out.resize(static_cast<size_t>(declared));
  ZSTD_DCtx* own = dctx ? nullptr : ZSTD_createDCtx();
  if (!dctx && !own) return "zstd: out of memory";
  const size_t n = ZSTD_decompressDCtx(dctx ? dctx : own, out.data(), out.size(), data, size);
  if (own) ZSTD_freeDCtx(own);
  if (ZSTD_isError(n)) return std::string("zstd: ") + ZSTD_getErrorName(n);
  if (n != declared) return "decoded size does not match the frame's";
  return "";
}

}  // namespace pecan
