// ForEachEventInTwoStages: every event, in order, through both stages, each with its first
// stage's note; a throw of either stage reaches the caller and stops the other; a file cut short
// gives the events ForEachEvent gives.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "random_trace.h"
#include "trace_format/event_pass.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"
#include "trace_format/two_stage_pass.h"

using namespace pecan;
using pecan::testing::MakeRandomTrace;
using pecan::testing::RandomTraceShape;
using pecan::testing::TempFile;

namespace {

// A note the second stage can check: it depends on the event's index and fields.
uint64_t NoteOf(EventIndex i, const Event& e) {
  return i * 0x9E3779B97F4A7C15ull ^ e.addr ^ (uint64_t{e.thread} << 40) ^
         (uint64_t{static_cast<uint8_t>(e.kind)} << 56) ^ e.size;
}

// 300,000 events: far more batches than the reader may decode ahead, so it waits for the
// second stage many times.
const Trace& BigTrace() {
  static const Trace trace = MakeRandomTrace(5, RandomTraceShape{300000, 6, 40});
  return trace;
}

}  // namespace

TEST_CASE("a pass in two stages sees every event in order, each with its first stage's note",
          "[pecan-file][two_stage_pass]") {
  const Trace& trace = BigTrace();
  TempFile file("two-stages.pecan");
  WriteTrace(file.path(), trace, TraceWriterOptions{1000, 1});
  const std::thread::id caller = std::this_thread::get_id();
  EventIndex first_next = 0, second_next = 0;
  bool first_elsewhere = true, second_here = true;
  uint64_t wrong = 0;
  TraceReader reader(file.path());
  const uint64_t read = ForEachEventInTwoStages<uint64_t>(
      reader, false, "", 0,
      [&](EventIndex i, const Event& e) {
        first_elsewhere &= std::this_thread::get_id() != caller;
        wrong += i != first_next++;
        return NoteOf(i, e);
      },
      [&](EventIndex i, const Event& e, uint64_t note) {
        second_here &= std::this_thread::get_id() == caller;
        wrong += i != second_next++;
        wrong += i >= trace.size_events() || e.addr != trace.addr[i] ||
                 e.thread != trace.thread[i] || e.kind != trace.kind[i] ||
                 note != NoteOf(i, trace.event(i));
      });
  CHECK(read == trace.size_events());
  CHECK(first_next == trace.size_events());
  CHECK(second_next == trace.size_events());
  CHECK(wrong == 0);
  CHECK(first_elsewhere);
  CHECK(second_here);
}

TEST_CASE("a throw of the second stage stops the reader and reaches the caller",
          "[pecan-file][two_stage_pass]") {
  const Trace& trace = BigTrace();
  TempFile file("two-stages-second.pecan");
  WriteTrace(file.path(), trace, TraceWriterOptions{1000, 1});
  TraceReader reader(file.path());
  EventIndex keyed = 0;
  EventIndex followed = 0;
  CHECK_THROWS_WITH(ForEachEventInTwoStages<int>(
                        reader, false, "", 0,
                        [&](EventIndex, const Event&) {
                          ++keyed;
                          return 0;
                        },
                        [&](EventIndex i, const Event&, int) {
                          if (i == 10000) throw std::runtime_error("second stage failed");
                          ++followed;
                        }),
                    "second stage failed");
  CHECK(followed == 10000);
  // The reader stopped within the batches it may decode ahead (16 of at most 4096 events).
  CHECK(keyed < 10000 + 17 * 4096);
  CHECK(keyed < trace.size_events());
}

TEST_CASE("a throw of the first stage reaches the caller after the events before its batch",
          "[pecan-file][two_stage_pass]") {
  const Trace& trace = BigTrace();
  TempFile file("two-stages-first.pecan");
  WriteTrace(file.path(), trace, TraceWriterOptions{1000, 1});
  TraceReader reader(file.path());
  EventIndex followed = 0;
  bool in_order = true;
  CHECK_THROWS_WITH(ForEachEventInTwoStages<int>(
                        reader, false, "", 0,
                        [&](EventIndex i, const Event&) {
                          if (i == 20500) throw std::runtime_error("first stage failed");
                          return 0;
                        },
                        [&](EventIndex i, const Event&, int) { in_order &= i == followed++; }),
                    "first stage failed");
  CHECK(in_order);
  // Chunks of 1000 events: the batch of the throw starts at event 20000.
  CHECK(followed == 20000);
}

TEST_CASE("a pass in two stages over a file cut short reads what ForEachEvent reads",
          "[pecan-file][two_stage_pass]") {
  const Trace& trace = BigTrace();
  TempFile file("two-stages-whole.pecan");
  WriteTrace(file.path(), trace, TraceWriterOptions{1000, 1});
  const std::string bytes = pecan::testing::ReadFileBytes(file.path());
  TempFile cut("two-stages-cut.pecan");
  pecan::testing::WriteFileBytes(cut.path(), bytes.substr(0, bytes.size() * 2 / 3));
  uint64_t one_pass_sum = 0, two_stage_sum = 0, seen = 0;
  TraceReader one(cut.path(), false);
  const uint64_t one_read = ForEachEvent(
      one, false, "", 0, [&](EventIndex i, const Event& e) { one_pass_sum += NoteOf(i, e); });
  TraceReader two(cut.path(), false);
  const uint64_t two_read = ForEachEventInTwoStages<uint64_t>(
      two, false, "", 0, [&](EventIndex i, const Event& e) { return NoteOf(i, e); },
      [&](EventIndex, const Event&, uint64_t note) {
        two_stage_sum += note;
        ++seen;
      });
  CHECK(one_read > 0);
  CHECK(one_read < trace.size_events());
  CHECK(two_read == one_read);
  CHECK(seen == one_read);
  CHECK(two_stage_sum == one_pass_sum);
  CHECK(two.warnings() == one.warnings());
  CHECK_FALSE(two.warnings().empty());
}

TEST_CASE("a pass's ahead sees each event's note kAhead events before its second stage",
          "[pecan-file][two_stage_pass]") {
  const Trace& trace = BigTrace();
  TempFile file("two-stages-ahead.pecan");
  WriteTrace(file.path(), trace, TraceWriterOptions{1000, 1});
  for (const bool two_threads : {true, false}) {
    INFO("two threads: " << two_threads);
    TraceReader reader(file.path());
    // The note is the event's index: `ahead` tells which event it was shown.
    EventIndex next = 0;                // the event the second stage sees next
    EventIndex shown = ~EventIndex{0};  // the event `ahead` was shown last, before `next`
    std::vector<bool> ever_shown(trace.size_events(), false);
    uint64_t wrong = 0;
    const uint64_t read = ForEachEventInStages<EventIndex>(
        two_threads, reader, false, "", 0, [](EventIndex i, const Event&) { return i; },
        [&](EventIndex i, const Event&, EventIndex note) {
          wrong += i != next || note != i;
          // Shown just before this event: the one kAhead later.
          wrong += shown != ~EventIndex{0} && shown != i + kAhead;
          shown = ~EventIndex{0};
          ++next;
        },
        [&](EventIndex note) {
          wrong += shown != ~EventIndex{0};  // one event shown per event seen, at most
          shown = note;
          if (note < ever_shown.size()) ever_shown[note] = true;
        });
    CHECK(read == trace.size_events());
    CHECK(next == trace.size_events());
    CHECK(wrong == 0);
    // Every event but the first kAhead of each batch of a few thousand: the events not shown come
    // in runs of kAhead (the last batch's may be shorter, at the end), a batch apart.
    uint64_t runs = 0;
    for (size_t i = 0; i < ever_shown.size();) {
      if (ever_shown[i]) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < ever_shown.size() && !ever_shown[end]) ++end;
      if (end < ever_shown.size()) {
        CHECK(end - i == kAhead);
      } else {
        CHECK(end - i <= kAhead);
      }
      ++runs;
      i = end;
    }
    CHECK(runs >= 1);
    CHECK(runs * 1000 <= ever_shown.size());  // batches of a chunk (1,000 events here) or more
  }
}
