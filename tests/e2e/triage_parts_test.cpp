// Unit tests of triage past one machine: the partition of the traces into shards (every trace in
// exactly one, stable, balanced by size), the merge of partial results (associative,
// commutative, idempotent; a damaged trace reported once; parts of other triages refused) and
// the state file that carries a part from one machine to the merge.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "proto/clip.pb.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "workflow/finding_merge.h"
#include "workflow/triage_partition.h"
#include "workflow/stored_clip.h"
#include "workflow/triage_state.h"

using namespace pecan::workflow;
namespace fs = std::filesystem;

namespace {

// A triage of traces [0, count) whose findings come from a seeded generator: keys from a small
// set (so traces share them), clips of random length (or none), and for some a replay verdict.
struct Corpus {
  std::vector<TriagedTrace> traces;
};

std::string TempDir(const std::string& leaf);

// Where the findings' clips are spilled, as triage does, inside a directory of this process's
// own (a spill directory removes the spill directories it finds beside it); removed at exit.
const std::string& SpillDirectory() {
  static const struct Spill {
    std::string parent = TempDir("spill");
    ClipSpillDirectory directory{parent};
    ~Spill() { std::filesystem::remove_all(parent); }
  } spill;
  return spill.directory.path();
}

Corpus MakeCorpus(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  Corpus corpus;
  for (size_t t = 0; t < count; t++) {
    TriagedTrace trace;
    trace.trace.path = "run-" + std::to_string(t) + ".pecan";
    trace.trace.status = random() % 10 == 0 ? "damaged" : "ok";
    trace.trace.events = random() % 1000;
    if (trace.trace.status == "ok") {
      const size_t findings = random() % 4;
      for (size_t f = 0; f < findings; f++) {
        TriagedFinding finding;
        const std::string key = "race|W-W|site" + std::to_string(random() % 7);
        finding.summary.key = key;
        finding.summary.id = "race-" + std::to_string(StableDigest(key) % 1000);
        finding.summary.pattern = "race";
        finding.summary.witnesses = 1 + random() % 5;
        finding.summary.traces = {trace.trace.path};
        if (random() % 5 != 0) {
          pecan::proto::Clip clip;
          clip.set_program(trace.trace.path);  // tells which trace's clip won
          finding.clip = StoredClip::Spill(clip, SpillDirectory());
          finding.summary.clip_steps = 5 + random() % 4;  // ties are common
          finding.summary.clip_trace = trace.trace.path;
        } else {
          finding.summary.clip_error = "no feasible schedule";
        }
        trace.findings.push_back(std::move(finding));
      }
    }
    corpus.traces.push_back(std::move(trace));
  }
  return corpus;
}

TriageState StateOf(const Corpus& corpus, const std::vector<size_t>& positions) {
  TriageState state;
  state.total_traces = corpus.traces.size();
  state.inputs_digest = "digest";
  for (size_t position : positions) {
    state.traces[position] = corpus.traces[position].trace;
    state.findings.Add(position, corpus.traces[position]);
  }
  return state;
}

// Everything a summary shows of a state, in one comparable string.
std::string Canonical(const TriageState& state) {
  std::ostringstream out;
  for (const auto& [position, trace] : state.traces)
    out << "trace " << position << " " << trace.path << " " << trace.status << "\n";
  for (const TriagedFinding& f : state.findings.Results()) {
    out << f.summary.key << " id=" << f.summary.id << " witnesses=" << f.summary.witnesses
        << " clip=" << (f.clip ? f.clip->program() : "-") << " steps=" << f.summary.clip_steps
        << " verdict=" << f.summary.verdict.outcome << " traces=";
    for (const auto& trace : f.summary.traces) out << trace << ",";
    out << "\n";
  }
  return out.str();
}

TriageState Merged(std::vector<TriageState> parts) {
  TriageState merged = std::move(parts.front());
  for (size_t i = 1; i < parts.size(); i++) merged.Merge(std::move(parts[i]), "part");
  return merged;
}

std::string TempDir(const std::string& leaf) {
  const std::string dir = "/tmp/pecan-triage-parts-" + std::to_string(::getpid()) + "-" + leaf;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("A shard is K/N with K counted from 0, and anything else is refused with the reason",
          "[triage][shard]") {
  ShardSpec shard = ParseShard("3/4", "--shard");
  CHECK(shard.index == 3);
  CHECK(shard.count == 4);
  CHECK(shard.text() == "3/4");
  CHECK(ParseShard("0/1", "--shard").count == 1);
  CHECK_THROWS_WITH(ParseShard("4/4", "--shard"),
                    Catch::Contains("numbered from 0") && Catch::Contains("the last of 4 is 3/4"));
  for (const char* bad : {"", "3", "/4", "1/", "a/4", "1/b", "-1/4", "1/0", "1/4/5", "0/100001"})
    CHECK_THROWS_AS(ParseShard(bad, "--shard"), pecan::PecanError);
  CHECK_THROWS_WITH(ParseShard("x/4", "triage: --shard"), Catch::StartsWith("triage: --shard x/4"));
}

TEST_CASE("Every trace is in exactly one shard, the same for the same sizes, and shards balance",
          "[triage][shard]") {
  std::mt19937 random(7);
  for (size_t items : {size_t{0}, size_t{1}, size_t{3}, size_t{40}, size_t{1000}}) {
    std::vector<uint64_t> sizes;
    for (size_t i = 0; i < items; i++) sizes.push_back(random() % 2 == 0 ? random() % 100000 : 0);
    for (size_t count : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{7}, size_t{100}}) {
      const std::vector<size_t> owner = PartitionByWeight(sizes, count);
      REQUIRE(owner.size() == items);
      CHECK(PartitionByWeight(sizes, count) == owner);  // stable
      std::vector<size_t> seen(items, 0);
      std::vector<uint64_t> load(count, 0);
      for (size_t k = 0; k < count; k++) {
        const std::vector<size_t> mine = ItemsOfShard(sizes, ShardSpec{k, count});
        CHECK(std::is_sorted(mine.begin(), mine.end()));
        for (size_t i : mine) {
          seen[i]++;
          CHECK(owner[i] == k);
          load[k] += std::max<uint64_t>(sizes[i], 1);
        }
      }
      CHECK(std::all_of(seen.begin(), seen.end(), [](size_t n) { return n == 1; }));
      // Largest first to the lightest shard: no shard exceeds another by more than one trace.
      const uint64_t largest =
          items == 0 ? 0 : std::max<uint64_t>(*std::max_element(sizes.begin(), sizes.end()), 1);
      CHECK(*std::max_element(load.begin(), load.end()) -
                *std::min_element(load.begin(), load.end()) <=
            largest);
    }
  }
  // Many empty files still spread over the shards rather than all going to shard 0.
  const std::vector<size_t> owner = PartitionByWeight(std::vector<uint64_t>(8, 0), 4);
  CHECK(std::set<size_t>(owner.begin(), owner.end()).size() == 4);
}

TEST_CASE("The input list's digest changes with the list and its order", "[triage][shard]") {
  CHECK(InputListDigest({"a.pecan", "b.pecan"}) == InputListDigest({"a.pecan", "b.pecan"}));
  CHECK(InputListDigest({"a.pecan", "b.pecan"}) != InputListDigest({"b.pecan", "a.pecan"}));
  CHECK(InputListDigest({"a.pecan", "b.pecan"}) != InputListDigest({"a.pecan"}));
  CHECK(InputListDigest({"ab"}) != InputListDigest({"a", "b"}));
}

TEST_CASE("Merging shards' results gives the whole triage's, however they are grouped",
          "[triage][merge]") {
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    const Corpus corpus = MakeCorpus(60, seed);
    std::vector<size_t> all(corpus.traces.size());
    for (size_t i = 0; i < all.size(); i++) all[i] = i;
    const std::string whole = Canonical(StateOf(corpus, all));

    std::vector<uint64_t> sizes;
    for (const auto& trace : corpus.traces) sizes.push_back(trace.trace.events);
    auto part = [&](size_t k, size_t n) {
      return StateOf(corpus, ItemsOfShard(sizes, ShardSpec{k, n}));
    };
    // In order, reversed, and chained: ((0+1)+(2+3)).
    CHECK(Canonical(Merged({part(0, 4), part(1, 4), part(2, 4), part(3, 4)})) == whole);
    CHECK(Canonical(Merged({part(3, 4), part(2, 4), part(1, 4), part(0, 4)})) == whole);
    CHECK(Canonical(Merged({Merged({part(0, 4), part(1, 4)}), Merged({part(2, 4), part(3, 4)})})) ==
          whole);
    // Idempotent: a part merged twice, or a merge merged with one of its parts, changes nothing
    // (witnesses are kept per trace, so they are not counted twice).
    CHECK(Canonical(Merged(
              {part(0, 2), part(1, 2), part(0, 2), Merged({part(1, 2), part(0, 2)})})) == whole);
    CHECK(Canonical(Merged({part(0, 1)})) == whole);
  }
}

TEST_CASE("A damaged trace in one shard is reported once after the merge", "[triage][merge]") {
  Corpus corpus = MakeCorpus(10, 9);
  for (auto& trace : corpus.traces) trace.trace.status = "ok";
  corpus.traces[4].trace.status = "damaged";
  corpus.traces[4].trace.error = "run-4.pecan: bad chunk at byte 120";
  corpus.traces[4].findings.clear();
  TriageState merged = Merged({StateOf(corpus, {0, 1, 2, 3, 4}), StateOf(corpus, {5, 6, 7, 8, 9}),
                               StateOf(corpus, {2, 3, 4})});
  size_t damaged = 0;
  for (const auto& [position, trace] : merged.traces) damaged += trace.status == "damaged";
  CHECK(merged.traces.size() == 10);
  CHECK(damaged == 1);
  CHECK(merged.traces.at(4).error == "run-4.pecan: bad chunk at byte 120");
}

TEST_CASE("A replay's verdict stays with its clip through merges, whichever part replayed it",
          "[triage][merge]") {
  const Corpus corpus = MakeCorpus(30, 11);
  std::vector<size_t> all(corpus.traces.size());
  for (size_t i = 0; i < all.size(); i++) all[i] = i;
  // Two replay parts of one merged result: each replayed half of the findings.
  TriageState first = StateOf(corpus, all), second = StateOf(corpus, all);
  std::vector<TriagedFinding> results = first.findings.Results();
  REQUIRE(results.size() >= 2);
  for (size_t i = 0; i < results.size(); i++) {
    SummaryVerdict verdict;
    verdict.outcome = i % 3 == 0 ? "infeasible" : "hatched";
    (i % 2 == 0 ? first : second).findings.SetVerdict(results[i].summary.key, verdict, "");
  }
  for (const TriageState& merged : {Merged({first, second}), Merged({second, first})}) {
    const std::vector<TriagedFinding> after = merged.findings.Results();
    REQUIRE(after.size() == results.size());
    for (size_t i = 0; i < after.size(); i++)
      CHECK(after[i].summary.verdict.outcome == (i % 3 == 0 ? "infeasible" : "hatched"));
  }
}

TEST_CASE("Parts of another triage are refused by name", "[triage][merge]") {
  const Corpus corpus = MakeCorpus(6, 3);
  TriageState base = StateOf(corpus, {0, 1, 2});
  TriageState other_inputs = StateOf(corpus, {3, 4, 5});
  other_inputs.inputs_digest = "another";
  CHECK_THROWS_WITH(TriageState(base).Merge(other_inputs, "parts/7"),
                    Catch::StartsWith("parts/7 is not part of the same triage") &&
                        Catch::Contains("another list of traces"));
  TriageState other_patterns = StateOf(corpus, {3, 4, 5});
  other_patterns.patterns = "race";
  CHECK_THROWS_WITH(TriageState(base).Merge(other_patterns, "p"),
                    Catch::Contains("--patterns race"));
  TriageState replayed = StateOf(corpus, {3, 4, 5});
  replayed.replay_command = {"./other"};
  base.replay_command = {"./app"};
  CHECK_THROWS_WITH(TriageState(base).Merge(replayed, "p"), Catch::Contains("./other"));
}

TEST_CASE("The state file carries a part's traces, findings, clips and verdicts to the merge",
          "[triage][merge]") {
  const std::string dir = TempDir("state");
  fs::create_directories(dir + "/clips");
  fs::create_directories(dir + "/failures");
  fs::create_directories(dir + "/replays");
  const Corpus corpus = MakeCorpus(20, 5);
  TriageState state = StateOf(corpus, {1, 3, 5, 7, 9, 11, 13, 15});
  state.replay_command = {"./app", "input.txt"};
  std::vector<TriagedFinding> results = state.findings.Results();
  REQUIRE(!results.empty());
  // As the report writes them: each clip in clips/ID.clip; the first one replayed and failed.
  for (TriagedFinding& f : results) {
    if (f.clip == nullptr) continue;
    f.summary.clip_path = "clips/" + f.summary.id + ".clip";
    fs::copy_file(f.clip->path(), dir + "/" + f.summary.clip_path);
  }
  SummaryVerdict verdict;
  verdict.outcome = "hatched";
  verdict.failure = "assertion";
  verdict.failure_clip = dir + "/failures/" + results[0].summary.id + ".clip";
  verdict.failure_line = 39;
  verdict.races_total = 3;
  std::ofstream(verdict.failure_clip) << "clip";
  std::ofstream(dir + "/replays/" + results[0].summary.id + ".log") << "log";
  results[0].replay_log = dir + "/replays/" + results[0].summary.id + ".log";
  results[0].summary.verdict = verdict;
  state.findings.SetVerdict(results[0].summary.key, verdict, results[0].replay_log);
  WriteTriageState(dir + "/" + kTriageStateFile, state, results);

  TriageState read = ReadTriageState(dir, "triage merge");
  CHECK(Canonical(read) == Canonical(state));
  CHECK(read.total_traces == 20);
  CHECK(read.replay_command == state.replay_command);
  const TriagedFinding first = read.findings.Results().front();
  CHECK(first.summary.verdict.failure == "assertion");
  CHECK(first.summary.verdict.failure_line == 39);
  CHECK(first.summary.verdict.races_total == 3);
  CHECK(first.summary.verdict.failure_clip == verdict.failure_clip);
  CHECK(first.replay_log == results[0].replay_log);

  // A missing or malformed state says which directory and what.
  CHECK_THROWS_WITH(ReadTriageState(dir + "/clips", "triage merge"),
                    Catch::StartsWith("triage merge: " + dir + "/clips: no triage-state.json"));
  std::ofstream(dir + "/" + kTriageStateFile) << "{\"format\": \"pecan-triage-state\"";
  CHECK_THROWS_WITH(ReadTriageState(dir, "triage merge"), Catch::Contains("malformed"));
  std::ofstream(dir + "/" + kTriageStateFile)
      << "{\"format\": \"pecan-triage-state\", \"version\": 1}";
  CHECK_THROWS_WITH(ReadTriageState(dir, "triage merge"), Catch::Contains("malformed"));
  fs::remove_all(dir);
}
