// ForEachEventInTwoStages: ForEachEvent over two threads, for a pass whose work per event splits
// in two stages that keep apart state: a reader thread decodes the events and runs the first stage
// on each, the calling thread runs the second, a few thousand events behind.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "trace_format/event_pass.h"
#include "trace_format/progress.h"
#include "trace_format/trace_reader.h"

namespace pecan {

// A pass's `ahead`: nothing.
struct NothingAhead {
  template <typename Note>
  void operator()(const Note&) const {}
};

// How many events before `second` sees an event `ahead` is shown its note: a few of second's
// steps, time for a cache miss to be served meanwhile.
inline constexpr size_t kAhead = 8;

// A batch's two stages (`count` events, the first numbered `index`): the notes first(index + j,
// event j) made into `notes`, then second(index + j, event j, notes[j]) for each, after ahead() of
// the note kAhead events later in the batch. Inline always: as a function of its own the second
// stage's loop made shardmap 310 K's analysis take 1.02-1.03 times the CPU.
template <typename Note, typename First>
__attribute__((always_inline)) inline void FirstStage(uint64_t index, const EventColumns& columns,
                                                      size_t count, First& first,
                                                      std::vector<Note>* notes) {
  notes->resize(count);
  for (size_t j = 0; j < count; ++j) (*notes)[j] = first(index + j, columns.event(j));
}
template <typename Note, typename Second, typename Ahead>
__attribute__((always_inline)) inline void SecondStage(uint64_t index, const EventColumns& columns,
                                                       size_t count, const std::vector<Note>& notes,
                                                       Second& second, const Ahead& ahead) {
  for (size_t j = 0; j < count; ++j) {
    if (j + kAhead < count) ahead(notes[j + kAhead]);
    second(index + j, columns.event(j), notes[j]);
  }
}

// Calls note = first(index, event) for each event of `reader`, in order, on a thread of its own,
// and second(index, event, note) for each, in order, on the calling thread (where the progress
// line is shown, as ForEachEvent shows it), after ahead(note) of the event kAhead later in its
// batch (where `second` may ask the cache for what it will read then). `first` must share no
// state with `second`, `ahead` or the caller until the pass returns. What either throws is
// thrown here, once the other has stopped: a throw of `first` (or a damaged trace's) after
// `second` has seen every event before it. Returns the number of events read. The reader is used
// by the other thread until then.
template <typename Note, typename First, typename Second, typename Ahead = NothingAhead>
uint64_t ForEachEventInTwoStages(TraceReader& reader, bool show_progress, const std::string& label,
                                 uint64_t total, First&& first, Second&& second,
                                 const Ahead& ahead = Ahead()) {
  std::optional<ProgressReporter> progress;
  StartPassProgress(progress, reader, show_progress, label, total);
  // Batches of a few thousand events (ForEachEvent's), up to 16 of them (2 MB) decoded ahead:
  // the reader waits when the second stage is that far behind. The two stages' work comes in
  // bursts: pcompress 4 MiB's first pass took 3.9 s with 8 batches ahead, 3.5 s with 32; with 16
  // (half the memory of 32) its 32 MiB trace took no longer.
  constexpr uint64_t kEventsAtATime = 4096;
  constexpr uint64_t kSlots = 16;
  struct Slot {
    EventBatch batch;
    std::vector<Note> notes;
  };
  std::array<Slot, kSlots> slots;
  std::mutex mutex;
  std::condition_variable filled;  // a batch came, or the reading ended
  std::condition_variable freed;   // a batch was done with, or the second stage stopped
  uint64_t produced = 0;           // batches filled (batch n is in slots[n % kSlots])
  uint64_t consumed = 0;           // batches the second stage is done with
  bool read_all = false;           // the reader ended (at the trace's end, or on a throw)
  bool stop = false;               // the second stage threw: the reader stops
  std::exception_ptr reader_error;

  std::thread reader_thread([&] {
    try {
      for (uint64_t n = 0;; ++n) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          freed.wait(lock, [&] { return stop || n - consumed < kSlots; });
          if (stop) break;
        }
        Slot& slot = slots[n % kSlots];
        if (!reader.NextEvents(slot.batch, kEventsAtATime)) break;
        const EventColumns columns = slot.batch.columns();
        const size_t count = slot.batch.count();
        const uint64_t index = slot.batch.first_event;
        FirstStage(index, columns, count, first, &slot.notes);
        std::lock_guard<std::mutex> lock(mutex);
        produced = n + 1;
        filled.notify_one();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      reader_error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex);
    read_all = true;
    filled.notify_one();
  });
  // Stops and joins the reader however this thread leaves.
  struct Joiner {
    std::thread& thread;
    std::mutex& mutex;
    std::condition_variable& freed;
    bool& stop;
    ~Joiner() {
      {
        std::lock_guard<std::mutex> lock(mutex);
        stop = true;
      }
      freed.notify_one();
      thread.join();
    }
  } joiner{reader_thread, mutex, freed, stop};

  uint64_t read = 0;
  for (uint64_t n = 0;; ++n) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      filled.wait(lock, [&] { return read_all || n < produced; });
      if (n >= produced) {  // the reader ended and every batch it filled is done
        if (reader_error) std::rethrow_exception(reader_error);
        break;
      }
    }
    const Slot& slot = slots[n % kSlots];
    const EventColumns columns = slot.batch.columns();  // second may write anywhere
    const size_t count = slot.batch.count();
    const uint64_t index = slot.batch.first_event;
    SecondStage(index, columns, count, slot.notes, second, ahead);
    read = index + count;
    if (progress) progress->Update(read);
    std::lock_guard<std::mutex> lock(mutex);
    consumed = n + 1;
    freed.notify_one();
  }
  return read;
}

// The same pass on the calling thread alone where `two_threads` is false: second(index, event,
// first(index, event)) for each event, as ForEachEvent calls its function; with an `ahead`, a
// batch's notes are all made first, so that `ahead` sees each kAhead events early, as above.
template <typename Note, typename First, typename Second, typename Ahead = NothingAhead>
uint64_t ForEachEventInStages(bool two_threads, TraceReader& reader, bool show_progress,
                              const std::string& label, uint64_t total, First&& first,
                              Second&& second, const Ahead& ahead = Ahead()) {
  if (two_threads)
    return ForEachEventInTwoStages<Note>(reader, show_progress, label, total, first, second, ahead);
  if constexpr (std::is_same_v<Ahead, NothingAhead>) {
    return ForEachEvent(reader, show_progress, label, total,
                        [&](EventIndex i, const Event& e) { second(i, e, first(i, e)); });
  } else {
    std::vector<Note> notes;
    return ForEachBatchUpTo(reader, show_progress, label, total, ~EventIndex{0},
                            [&](uint64_t index, const EventColumns& columns, size_t count) {
                              FirstStage(index, columns, count, first, &notes);
                              SecondStage(index, columns, count, notes, second, ahead);
                            });
  }
}

}  // namespace pecan
