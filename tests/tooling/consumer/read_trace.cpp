// A program that reads a .pecan trace through the installed library (pecan::trace_format), as a
// user's own tool would: prints the events, threads and writes to `tally_total`.
#include <pecan/trace_format/trace_reader.h>

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: read_trace TRACE.pecan\n");
    return 2;
  }
  try {
    pecan::TraceReader reader(argv[1]);
    pecan::EventBatch batch;
    unsigned long long events = 0, writes = 0;
    while (reader.Next(batch)) {
      for (size_t i = 0; i < batch.count(); ++i) {
        ++events;
        writes += batch.event(i).kind == pecan::EventKind::kWrite;
      }
    }
    std::printf("events=%llu threads=%zu writes=%llu complete=%d\n", events,
                reader.threads().size(), writes, reader.complete() ? 1 : 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "read_trace: %s\n", e.what());
    return 1;
  }
  return 0;
}
