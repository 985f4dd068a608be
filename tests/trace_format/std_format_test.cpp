// Tests of STD text import and export: the issue's example, pecan's extensions, lenient input
// (comments, whitespace, arbitrary names), byte-identical round trips and error messages.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "trace_format/error.h"
#include "trace_format/std_format.h"

using namespace pecan;

namespace {

Trace Import(const std::string& text, const std::string& source = "test.std") {
  std::istringstream in(text);
  return ImportStd(in, source);
}

std::string Export(const Trace& trace, bool strict = false) {
  std::ostringstream out;
  ExportStd(trace, out, StdExportOptions{strict});
  return out.str();
}

std::string ImportError(const std::string& text) {
  try {
    Import(text, "bad.std");
  } catch (const PecanError& e) {
    return e.what();
  }
  return "no error";
}

const char* kIssueExample =
    "T0|r(V12)|34\n"
    "T1|w(V3.f[0])|7\n"
    "T0|fork(T2)|11\n"
    "T2|acq(L3)|9\n"
    "T2|rel(L3)|10\n"
    "T0|join(T2)|12\n";

}  // namespace

TEST_CASE("STD import of the issue's example", "[std]") {
  Trace t = Import(kIssueExample);
  REQUIRE(t.size_events() == 6);
  CHECK(t.kind[0] == EventKind::kRead);
  CHECK(t.kind[1] == EventKind::kWrite);
  CHECK(t.kind[2] == EventKind::kFork);
  CHECK(t.kind[3] == EventKind::kLock);
  CHECK(t.kind[4] == EventKind::kUnlock);
  CHECK(t.kind[5] == EventKind::kJoin);
  // Names T0..T2 are kept as ids.
  CHECK(t.thread == std::vector<ThreadId>{0, 1, 0, 2, 2, 0});
  CHECK(t.addr[2] == 2);  // fork target: the child's id
  CHECK(t.addr[5] == 2);
  REQUIRE(t.threads.size() == 3);
  CHECK_FALSE(t.threads[0].parent.has_value());
  CHECK(t.threads[2].parent == std::optional<ThreadId>(0));
  CHECK(t.threads[2].ordinal == 0);
  CHECK(t.threads[1].name == "T1");
  // Variables are 8-byte, distinct, and named; the lock has its own address.
  CHECK(t.size[0] == 8);
  CHECK(t.size[1] == 8);
  CHECK(t.addr[0] != t.addr[1]);
  CHECK(t.addr[3] == t.addr[4]);
  CHECK(t.addr[3] != t.addr[0]);
  std::set<std::string> names;
  for (const auto& n : t.names) names.insert(n.name);
  CHECK(names == std::set<std::string>{"V12", "V3.f[0]", "L3"});
  // Sites carry the location as offset with no module.
  CHECK(t.sites[t.site[0]].offset == 34);
  CHECK(t.sites[t.site[0]].module == kNoModule);
  CHECK(t.sites[t.site[3]].offset == 9);
  CHECK(t.meta.producer == "std-import");
}

TEST_CASE("STD canonical text round-trips byte for byte", "[std]") {
  CHECK(Export(Import(kIssueExample)) == kIssueExample);

  const std::string extensions =
      "main|begin|1\n"
      "main|fork(worker)|2\n"
      "worker|begin|3\n"
      "worker|aload(flag)|4\n"
      "worker|astore(flag,release)|5\n"
      "worker|armw(count,acq_rel)|6\n"
      "worker|fence(acquire)|7\n"
      "worker|racq(rw)|8\n"
      "worker|rrel(rw)|9\n"
      "worker|acq(m,try)|10\n"
      "worker|wait(cv,timeout)|11\n"
      "worker|wait(cv)|12\n"
      "worker|rel(m)|13\n"
      "main|notify(cv)|14\n"
      "main|notifyall(cv)|15\n"
      "main|barrier_arrive(bar,2)|16\n"
      "main|barrier_depart(bar,2)|17\n"
      "main|post(sem)|18\n"
      "worker|semwait(sem)|19\n"
      "main|alloc(block,64)|20\n"
      "main|w(block)|21\n"
      "main|free(block,64)|22\n"
      "main|enter(compute)|23\n"
      "main|exit(compute)|24\n"
      "main|begin(region1)|25\n"
      "main|end(region1)|26\n"
      "main|begin()|27\n"
      "main|end()|28\n"
      "main|hbrel(key)|29\n"
      "worker|hbacq(key)|30\n"
      "worker|end|31\n"
      "main|join(worker)|32\n"
      "main|end|33\n";
  Trace t = Import(extensions);
  CHECK(Export(t) == extensions);
  CHECK(t.kind[4] == EventKind::kAtomicStore);
  CHECK(t.flags[3] == static_cast<uint8_t>(MemoryOrder::kSeqCst));
  CHECK(t.flags[4] == static_cast<uint8_t>(MemoryOrder::kRelease));
  CHECK(t.flags[9] == kTryLockFlag);
  CHECK(t.flags[10] == kWaitTimedOutFlag);
  CHECK(t.size[15] == 2);   // barrier participants
  CHECK(t.size[19] == 64);  // block size
  CHECK(t.addr[20] == t.addr[19]);
  CHECK(t.kind[24] == EventKind::kRegionBegin);
  CHECK(t.addr[26] == 0);  // region without a key
  CHECK(t.kind[0] == EventKind::kThreadBegin);
  // Thread names that are not T<n> get ids in order of first appearance.
  CHECK(t.threads.size() == 2);
  CHECK(t.threads[0].name == "main");
  CHECK(t.threads[1].name == "worker");
  CHECK(t.threads[1].parent == std::optional<ThreadId>(0));
}

TEST_CASE("STD strict export keeps only plain STD lines", "[std]") {
  Trace t = Import(
      "T0|acq(m,try)|1\n"
      "T0|astore(x,relaxed)|2\n"
      "T0|w(x)|3\n"
      "T0|enter(f)|4\n"
      "T0|rel(m)|5\n");
  CHECK(Export(t, true) == "T0|acq(m)|1\nT0|w(x)|3\nT0|rel(m)|5\n");
}

TEST_CASE("STD import tolerates comments, blank lines, whitespace and case", "[std]") {
  Trace messy = Import(
      "# a comment\n"
      "\n"
      "  T0 | R( V12 ) | 34  \r\n"
      "T1|w(V3.f[0])|7\n"
      "   # indented comment\n"
      "T0|FORK(T2)|011\n"
      "T2 |acq(L3)|9\n"
      "T2|rel(L3)|10\n"
      "T0|join(T2)|12");
  Trace clean = Import(kIssueExample);
  CHECK(messy.kind == clean.kind);
  CHECK(messy.thread == clean.thread);
  CHECK(messy.addr == clean.addr);
  CHECK(Export(messy) == kIssueExample);
  // Each event remembers its line in the file, comments and blank lines counted.
  CHECK(messy.source_line == std::vector<uint32_t>{3, 4, 6, 7, 8, 9});
  CHECK(clean.source_line == std::vector<uint32_t>{1, 2, 3, 4, 5, 6});
  CHECK(clean.source_line.size() == clean.size_events());
}

TEST_CASE("STD thread names of any form get dense ids, the first seen being main", "[std]") {
  Trace t = Import(
      "thread-7|w(x)|1\n"
      "T5|r(x)|2\n"
      "thread-7|fork(T5)|3\n"
      "thread-7|fork(0x1234)|4\n");
  REQUIRE(t.threads.size() == 3);
  CHECK(t.thread == std::vector<ThreadId>{0, 1, 0, 0});
  CHECK(t.threads[0].name == "thread-7");
  CHECK(t.threads[1].name == "T5");
  CHECK(t.threads[1].parent == std::optional<ThreadId>(0));
  CHECK(t.threads[1].ordinal == 0);
  CHECK(t.threads[2].ordinal == 1);
  // T<n> names that are not exactly T0..T<n-1> do not keep their numbers.
  Trace gap = Import("T1|w(x)|1\nT2|w(x)|2\n");
  CHECK(gap.thread == std::vector<ThreadId>{0, 1});
  CHECK(Export(gap) == "T1|w(x)|1\nT2|w(x)|2\n");
  // Dense T<n> names keep their numbers even when T0 is not seen first.
  Trace dense = Import("T1|w(x)|1\nT0|w(x)|2\n");
  CHECK(dense.thread == std::vector<ThreadId>{1, 0});
}

TEST_CASE("STD variables, locks and other objects live in separate namespaces", "[std]") {
  Trace t = Import("T0|acq(X)|1\nT0|w(X)|2\nT0|rel(X)|3\nT0|notify(X)|4\n");
  CHECK(t.addr[0] == t.addr[2]);
  CHECK(t.addr[0] != t.addr[1]);
  CHECK(t.addr[3] != t.addr[0]);
  CHECK(t.addr[3] != t.addr[1]);
  // A block larger than 8 bytes does not overlap the next variable.
  Trace b = Import("T0|alloc(big,100)|1\nT0|w(next)|2\n");
  CHECK(b.addr[1] >= b.addr[0] + 100);
}

TEST_CASE("STD locations that are not numbers map to distinct, stable sites", "[std]") {
  const std::string text =
      "T0|w(x)|main.c:10\n"
      "T1|r(x)|main.c:12\n"
      "T0|w(x)|main.c:10\n"
      "T1|r(x)|5\n";
  Trace a = Import(text);
  Trace b = Import(text);
  CHECK(a.site[0] == a.site[2]);
  CHECK(a.site[0] != a.site[1]);
  CHECK(a.sites.size() == 3);
  CHECK(a.sites[a.site[0]].offset == b.sites[b.site[0]].offset);
  CHECK(a.sites[a.site[3]].offset == 5);
  CHECK(Export(a) == text);
}

TEST_CASE("STD import errors name the file and line", "[std]") {
  CHECK(ImportError("T0|r(x)|1\nT0|r(x)\n") ==
        "bad.std:2: expected THREAD|OP(TARGET)|LOCATION, got 'T0|r(x)'");
  CHECK(ImportError("T0|zap(x)|1\n") == "bad.std:1: unknown operation 'zap'");
  CHECK(ImportError("T0|r(x|1\n") == "bad.std:1: operation 'r(x' lacks its closing ')'");
  CHECK(ImportError("T0|r()|1\n") == "bad.std:1: operation 'r' needs a target name");
  CHECK(ImportError("T0|r|1\n") == "bad.std:1: operation 'r' needs a target in parentheses");
  CHECK(ImportError("T0|alloc(x)|1\n") ==
        "bad.std:1: operation 'alloc' needs a count: alloc(NAME,N)");
  CHECK(ImportError("T0|astore(x,weird)|1\n") == "bad.std:1: unknown memory order 'weird'");
  CHECK(ImportError("\n\n|r(x)|1\n") == "bad.std:3: empty thread name");
  CHECK(ImportError("T0|r(x)|1|2\n") ==
        "bad.std:1: too many '|' fields (expected THREAD|OP(TARGET)|LOCATION)");
  CHECK(ImportError("T0|r(x)| \n") == "bad.std:1: empty location");
}
