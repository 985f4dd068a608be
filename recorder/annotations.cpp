// The runtime side of include/pecan/annotations.h: user regions and happens-before edges
// become stamped REGION_BEGIN/REGION_END and HB_RELEASE/HB_ACQUIRE events keyed by the user.
#include <cstdint>

#include "recorder/export.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using pecan::rt::RecordSync;

PECAN_EXPORT void __pecan_region_begin(uintptr_t key) {
  RecordSync(EventKind::kRegionBegin, 0, key, 0, PECAN_CALLER_PC());
}

PECAN_EXPORT void __pecan_region_end(uintptr_t key) {
  RecordSync(EventKind::kRegionEnd, 0, key, 0, PECAN_CALLER_PC());
}

PECAN_EXPORT void __pecan_happens_before(uintptr_t key) {
  RecordSync(EventKind::kHbRelease, 0, key, 0, PECAN_CALLER_PC());
}

PECAN_EXPORT void __pecan_happens_after(uintptr_t key) {
  RecordSync(EventKind::kHbAcquire, 0, key, 0, PECAN_CALLER_PC());
}
