// pecan_anomaly_formed: an exported, empty, non-inlinable function for debugger breakpoints.
#include "replayer/anomaly_breakpoint.h"

extern "C" __attribute__((noinline, visibility("default"), used)) void pecan_anomaly_formed(void) {
  asm volatile("" ::: "memory");
}
