// The synchronization sequences' counters, one cache line each (64 KiB).
#include "recorder/object_sequences.h"

namespace pecan::rt {

SyncSequence sync_sequences[kSyncSequences];

void ResetSyncSequencesAfterFork() {
  for (SyncSequence& sequence : sync_sequences) {
    sequence.numbered.store(0, std::memory_order_relaxed);
  }
}

}  // namespace pecan::rt
