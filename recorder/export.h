// Marks the symbols libpecan_rt.so exports: the compiler callbacks, the interposed libc and
// pthread functions and the annotation API. Everything else in the library is hidden.
#pragma once

#include <cstdint>

#define PECAN_EXPORT extern "C" __attribute__((visibility("default")))

// The return address of the exported function that uses it: a site inside the caller.
#define PECAN_CALLER_PC() (reinterpret_cast<uint64_t>(__builtin_return_address(0)))
