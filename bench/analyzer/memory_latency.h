// MemoryLatencyNs: how long a load that misses this core's caches takes right now.
#pragma once

namespace pecan::bench {

// Nanoseconds per load of a pointer chase through `mebibytes` MiB in random order (each load's
// address is the one before's value, so none overlaps another). With 8 MiB, four times the
// per-core L2 of the machines here, it measures the shared L3. On a shared VM that figure moves
// with what the host's other guests do, and the streaming analysis's time moves with it: the
// benchmark prints it so that runs taken at different moments can be compared.
double MemoryLatencyNs(unsigned mebibytes = 8);

}  // namespace pecan::bench
