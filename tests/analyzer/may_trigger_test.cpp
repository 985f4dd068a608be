// May-trigger relations (DrFinder's Algorithm 1): Table 1 of the paper from Figure 2's trace,
// the depth bound, recursion, unbalanced exits, lock classes (globals, heap blocks by their
// allocation site, raw addresses), the key formats, and the JSON file.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <filesystem>

#include "analyzer/may_trigger.h"
#include "analyzer/may_trigger_keys.h"
#include "analyzer/symbolizer.h"
#include "drfinder_figure2.h"
#include "std_trace.h"
#include "trace_builder.h"
#include "trace_format/error.h"

using pecan::CollectMayTrigger;
using pecan::EventKind;
using pecan::LockAcquisitionClasses;
using pecan::MayTriggerRelations;
using pecan::Symbolizer;
using pecan::Trace;
using pecan::testing::StdTrace;
using pecan::testing::TraceBuilder;

namespace {

using Table = std::map<std::string, std::set<std::string>, std::less<>>;

MayTriggerRelations Collect(const Trace& trace, uint32_t depth = pecan::kDefaultMayTriggerDepth) {
  Symbolizer symbolizer(trace);
  return CollectMayTrigger(trace, symbolizer, depth);
}

// A function entered at a synthetic address named in the trace's name table, as STD imports are.
constexpr uint64_t kFunctionBase = 0x800000000;

void Name(TraceBuilder& b, uint64_t address, uint64_t size, const std::string& name) {
  b.mutable_trace().names.push_back(pecan::AddressName{address, size, name});
}

void Enter(TraceBuilder& b, pecan::ThreadId t, const std::string& function) {
  uint64_t address = 0;
  for (const auto& n : b.trace().names) {
    if (n.name == function) address = n.address;
  }
  if (address == 0) {
    address = kFunctionBase + 8 * b.trace().names.size();
    Name(b, address, 8, function);
  }
  b.Add(t, EventKind::kFuncEntry, address, 0, 0, 0);
}

}  // namespace

// A function of this test binary for the symbolizer to find (external linkage, not inlined).
__attribute__((noinline)) int PecanMayTriggerTestMarker(int x) {
  return x * 3 + 1;
}

TEST_CASE("May-trigger: DrFinder Figure 2's trace gives Table 1", "[maytrigger][paper]") {
  const MayTriggerRelations relations = Collect(StdTrace(pecan::testing::kDrFinderSigma1));
  // Table 1 with the lock objects' types as their names (c_k = k, c_1 = o1, ...).
  const Table table1{
      {"f1", {"k", "o1", "n"}},  {"f2", {"o1", "n"}}, {"f3", {"o2", "o3", "n"}},
      {"f4", {"o2", "o3", "n"}}, {"f5", {"n"}},       {"f6", {"o4", "o5", "k"}},
      {"f7", {"o4", "o5", "k"}}, {"f8", {"k"}},
  };
  CHECK(relations.ByFunction() == table1);
  CHECK(relations.size() == 19);
  // The paper's walk-through: at e1 (k), t3 in f6 may trigger k; at e3 (n), t2 in f4 may
  // trigger n; at e2 (o1) and e4 (o2) nothing matches.
  CHECK(relations.MayTrigger("f6", "k"));
  CHECK(relations.MayTrigger("f4", "n"));
  CHECK_FALSE(relations.MayTrigger("f4", "o1"));
  CHECK_FALSE(relations.MayTrigger("f2", "o2"));
  CHECK_FALSE(relations.MayTrigger("f9", "k"));
  // The reversed run has the same relations: they are about functions, not the order.
  CHECK(Collect(StdTrace(pecan::testing::kDrFinderSigma2)) == relations);
}

TEST_CASE("May-trigger: only the D innermost functions get the relation", "[maytrigger]") {
  const Trace trace = StdTrace(pecan::testing::kDrFinderSigma1);
  // Depth 2: at e6 the stack is f3 f4 f5, so f3 loses n (and f6 loses k at e9).
  const MayTriggerRelations two = Collect(trace, 2);
  CHECK_FALSE(two.MayTrigger("f3", "n"));
  CHECK(two.MayTrigger("f4", "n"));
  CHECK_FALSE(two.MayTrigger("f6", "k"));
  CHECK(two.MayTrigger("f6", "o4"));
  CHECK(two.size() == 17);
  CHECK(Collect(trace, 1).size() == 9);  // each acquisition, its own function only
  CHECK(Collect(trace, 0).size() == 0);

  TraceBuilder b;
  for (const char* f : {"a", "b", "c", "d", "e"}) Enter(b, 0, f);
  b.Lock(0, 0x2000);
  const MayTriggerRelations deep = Collect(b.trace());
  CHECK(deep.ByFunction() ==
        Table{{"c", {"lock@0x2000"}}, {"d", {"lock@0x2000"}}, {"e", {"lock@0x2000"}}});
}

TEST_CASE("May-trigger: recursion, unbalanced exits and thread ends are tolerated",
          "[maytrigger]") {
  TraceBuilder b;
  Name(b, 0x2000, 8, "m");
  Name(b, 0x2008, 8, "late");
  Name(b, 0x2010, 8, "rw");
  b.FuncExit(0);  // an exit from a function entered before recording began: ignored
  Enter(b, 0, "outer");
  for (int k = 0; k < 4; ++k) Enter(b, 0, "rec");
  b.Lock(0, 0x2000);  // stack: outer rec rec rec rec: only rec within depth 3
  b.Unlock(0, 0x2000);
  for (int k = 0; k < 6; ++k) b.FuncExit(0);  // two exits too many
  b.Lock(0, 0x2008);                          // nothing on the stack: no relation
  Enter(b, 0, "after");
  b.ReadLock(0, 0x2010);  // read-mode acquisitions count too
  b.End(0);               // THREAD_END empties the stack
  b.Lock(0, 0x2008);
  Enter(b, 1, "other");
  b.Lock(1, 0x2000);
  const MayTriggerRelations relations = Collect(b.trace());
  CHECK(relations.ByFunction() == Table{{"rec", {"m"}}, {"after", {"rw"}}, {"other", {"m"}}});
}

TEST_CASE("May-trigger: lock classes are globals, allocation sites, or raw addresses",
          "[maytrigger]") {
  TraceBuilder b;
  Name(b, 0x2000, 80, "forks");                    // a global array of 5 mutexes
  b.Add(0, EventKind::kAlloc, 0x10000, 64, 0, 7);  // block A, allocated at site 7
  b.Add(0, EventKind::kAlloc, 0x20000, 64, 0, 7);  // block B, same site
  b.Add(0, EventKind::kAlloc, 0x30000, 64, 0, 8);  // block C, another site
  Enter(b, 0, "f");
  b.Lock(0, 0x2000);   // 4: forks[0]
  b.Lock(0, 0x2030);   // 5: forks[3]: the same class
  b.Lock(0, 0x10010);  // 6: in A
  b.Lock(0, 0x20000);  // 7: in B: A's class
  b.Lock(0, 0x30020);  // 8: in C
  b.Lock(0, 0x10040);  // 9: one past A's end: a raw address
  b.Free(0, 0x10000, 64);
  b.Lock(0, 0x10010);  // 11: A freed: a raw address

  Symbolizer symbolizer(b.trace());
  const auto classes = LockAcquisitionClasses(b.trace(), symbolizer);
  std::vector<std::pair<pecan::EventIndex, std::string>> got;
  for (const auto& c : classes) got.emplace_back(c.event, c.lock_class);
  CHECK(got == std::vector<std::pair<pecan::EventIndex, std::string>>{
                   {4, "forks"},
                   {5, "forks"},
                   {6, "alloc@loc+0x7"},
                   {7, "alloc@loc+0x7"},
                   {8, "alloc@loc+0x8"},
                   {9, "lock@0x10040"},
                   {11, "lock@0x10010"},
               });
  CHECK(Collect(b.trace()).ByFunction() ==
        Table{{"f", {"forks", "alloc@loc+0x7", "alloc@loc+0x8", "lock@0x10010", "lock@0x10040"}}});
}

TEST_CASE("May-trigger: keys of recorded traces are module basename + offset", "[maytrigger]") {
  TraceBuilder b;
  Trace& trace = b.mutable_trace();
  // A module the symbolizer cannot open: its sites keep their code-address keys.
  trace.modules.push_back(pecan::ModuleInfo{1, "/nonexistent/dir/app", 0x400000, ""});
  trace.sites.push_back(pecan::SiteInfo{1, 0x1a2f});  // site 0: a function entry
  trace.sites.push_back(pecan::SiteInfo{1, 0x2b00});  // site 1: an allocation call
  Name(b, 0x404010, 8, "g_mutex");                    // a global in the module's data
  b.Add(0, EventKind::kFuncEntry, 0, 0, 0, 0);
  b.Add(0, EventKind::kAlloc, 0x7f0000, 32, 0, 1);
  b.Lock(0, 0x404010);
  b.Lock(0, 0x7f0008);

  CHECK(pecan::SiteKey(trace, 0) == "app+0x1a2f");
  const MayTriggerRelations relations = Collect(trace);
  CHECK(relations.ByFunction() == Table{{"app+0x1a2f", {"g_mutex", "alloc@app+0x2b00"}}});
  // The runtime's name for the global lock: where its address lies in the module.
  CHECK(relations.GlobalLocks() == std::map<std::string, std::string>{{"app+0x4010", "g_mutex"}});
  // Unsymbolized entry sites are their own function keys: nothing to alias.
  CHECK(relations.EntrySites().empty());
}

TEST_CASE("May-trigger: JSON round trip, merge, and bad files", "[maytrigger]") {
  MayTriggerRelations relations = Collect(StdTrace(pecan::testing::kDrFinderSigma1));
  relations.AddEntrySite("app+0x1a2f", "worker");
  relations.AddGlobalLock("app+0x4010", "g_mutex");
  const std::string text = relations.ToJson();
  CHECK(text.find("\"format\": \"pecan-may-trigger\"") != std::string::npos);
  CHECK(MayTriggerRelations::FromJson(text) == relations);

  const std::string path =
      (std::filesystem::temp_directory_path() / "pecan-may-trigger-test.json").string();
  relations.Write(path);
  CHECK(MayTriggerRelations::Read(path) == relations);
  std::filesystem::remove(path);

  MayTriggerRelations other;
  other.Add("f1", "z");
  other.Add("g", "k");
  MayTriggerRelations merged = relations;
  merged.Merge(other);
  CHECK(merged.size() == relations.size() + 2);
  CHECK(merged.MayTrigger("f1", "z"));
  CHECK(merged.MayTrigger("f1", "k"));
  CHECK(merged.MayTrigger("g", "k"));
  merged.Merge(other);  // idempotent
  CHECK(merged.size() == relations.size() + 2);

  CHECK_THROWS_AS(MayTriggerRelations::FromJson("{"), pecan::PecanError);
  CHECK_THROWS_AS(MayTriggerRelations::FromJson(R"({"format": "other"})"), pecan::PecanError);
  CHECK_THROWS_AS(MayTriggerRelations::FromJson(R"({"format": "pecan-may-trigger", "version": 1,
                                        "relations": {"f": "k"}})"),
                  pecan::PecanError);
  CHECK_THROWS_AS(MayTriggerRelations::Read("/nonexistent/mt.json"), pecan::PecanError);
}

TEST_CASE("May-trigger: a symbolized function entry is keyed by its name, its site aliased",
          "[maytrigger]") {
  // A FUNC_ENTRY inside PecanMayTriggerTestMarker of this very binary, as the recorder would
  // store it (module + offset of an address inside the function).
  Dl_info info{};
  const auto function = reinterpret_cast<void*>(&PecanMayTriggerTestMarker);
  REQUIRE(dladdr(function, &info) != 0);
  REQUIRE(PecanMayTriggerTestMarker(1) == 4);
  const uint64_t base = reinterpret_cast<uint64_t>(info.dli_fbase);
  const uint64_t offset = reinterpret_cast<uint64_t>(function) - base + 1;
  TraceBuilder b;
  Trace& trace = b.mutable_trace();
  trace.modules.push_back(
      pecan::ModuleInfo{1, std::filesystem::read_symlink("/proc/self/exe").string(), base, ""});
  trace.sites.push_back(pecan::SiteInfo{1, offset});
  Name(b, 0x2000, 8, "m");
  b.Add(0, EventKind::kFuncEntry, 0, 0, 0, 0);
  b.Lock(0, 0x2000);

  const MayTriggerRelations relations = Collect(trace);
  REQUIRE(relations.ByFunction().size() == 1);
  const std::string& key = relations.ByFunction().begin()->first;
  CHECK(key == "PecanMayTriggerTestMarker(int)");
  // The runtime sees only the entry PC: the alias table maps its code-address key to the name.
  const std::string site_key = pecan::SiteKey(trace, 0);
  CHECK(site_key.rfind("analyzer_tests+0x", 0) == 0);
  CHECK(relations.EntrySites() == std::map<std::string, std::string>{{site_key, key}});
}
