// Where the runtime sits in the program's symbol lookup order: first (linked by the executable
// or preloaded), or after libc because only an instrumented library of the program needs it.
#pragma once

namespace pecan::rt {

// Whether `symbol` lies in libpecan_rt.so itself (false for nullptr).
bool DefinedByRuntime(const void* symbol);

// The path libpecan_rt.so was loaded from ("" if unknown).
const char* RuntimeLibraryPath();

// Whether the program's pthread calls reach the runtime's interposers: false when the runtime
// was loaded after libc (library mode without LD_PRELOAD), where they go straight to libc and
// the runtime would never see a thread start.
bool InterposersComeFirst();

// Takes this runtime out of LD_PRELOAD (`pecan record` preloads it in library mode), so the
// programs this one starts, which record nothing, do not load it too. Not thread-safe (setenv):
// called from start-up, beside the unsetenv of PECAN_MODE.
void LeaveOutOfChildrenPreload();

}  // namespace pecan::rt
