// MemoryLatencyNs: how long a load that misses this core's caches takes right now.
#pragma once

namespace pecan::bench {

// Nanoseconds per load of a pointer chase through `mebibytes` MiB in random order (each load's
// address is the one before's value, so none overlaps another). With 8 MiB, four times the
// per-core L2 of the machines here, it measures the shared L3. On a shared VM that figure moves
// with what the host's other guests do, and the streaming analysis's time moves with it: the
// benchmark prints it so that runs taken at different moments can be compared. Measured in a
// child process: the caller's memory, CPU time and any profiler's or cache simulator's counts
// (which a measured child forked later would inherit) stay its own. 0 if the child failed.
double MemoryLatencyNs(unsigned mebibytes = 8);

}  // namespace pecan::bench
