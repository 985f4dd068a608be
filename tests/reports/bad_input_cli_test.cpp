// The built `pecan` on bad input (issue 20): every failure is one line on stderr naming the file
// and the line or offset, with exit status 2, no crash, no libprotobuf chatter, no raw control
// bytes, and no output file left behind; replay --json still prints its verdict object.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "proto/clip.pb.h"
#include "tests/support/cli_workspace.h"
#include "trace_format/clip_file.h"

namespace {

struct Workspace : pecan::test::CliWorkspace {
  Workspace() : CliWorkspace("bad-input-test", PECAN_BINARY) {}
};

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A clip the reader accepts: two threads, one site, three steps.
pecan::proto::Clip SmallClip() {
  pecan::proto::Clip clip;
  clip.add_threads()->set_id(0);
  auto* child = clip.add_threads();
  child->set_id(1);
  child->set_parent(0);
  auto* site = clip.add_sites();
  site->set_id(4);
  site->set_offset(12);
  clip.add_run_thread(0);
  clip.add_run_length(2);
  clip.add_run_thread(1);
  clip.add_run_length(1);
  for (int k = 0; k < 3; ++k) {
    clip.add_step_kind(pecan::proto::WRITE);
    clip.add_step_site(4);
    clip.add_step_origin(static_cast<uint64_t>(k));
  }
  return clip;
}

}  // namespace

TEST_CASE("an STD name that is not UTF-8 is refused at import, naming the line", "[cli][input]") {
  Workspace w;
  w.Write("bad.std", "T0|w(x)|1\n\xff\xfe|r(x)|2\nT0|w(y)|3\n");
  const std::string expected = "pecan: error: bad.std:2: not UTF-8 text: byte 0xFF at column 1\n";
  // It was written, reported as "wrote 5 events", and could not be read back.
  auto convert = w.Pecan("convert bad.std out.pecan");
  CHECK(convert.status == 2);
  CHECK(convert.err == expected);
  CHECK(convert.out.empty());
  CHECK_FALSE(std::filesystem::exists(w.Path("out.pecan")));
  // It made `dump -f json` report an internal JSON error.
  auto dump = w.Pecan("dump -f json bad.std");
  CHECK(dump.status == 2);
  CHECK(dump.err == expected);
}

TEST_CASE("STD errors show control bytes escaped", "[cli][input]") {
  Workspace w;
  w.Write("ctl.std", "T0|w(x)|1\nT1|\x1b[31mzz\x07(x)|2\n");
  auto run = w.Pecan("dump ctl.std");
  CHECK(run.status == 2);
  CHECK(run.err == "pecan: error: ctl.std:2: unknown operation '\\x1b[31mzz\\x07'\n");
}

TEST_CASE("a damaged clip is one pecan line, without libprotobuf's", "[cli][input]") {
  Workspace w;
  pecan::proto::Clip clip = SmallClip();
  clip.mutable_finding()->set_pattern("\xff");  // protobuf refuses to parse it back
  pecan::WriteClipFile(w.Path("bad.clip"), clip);
  auto run = w.Pecan("dump bad.clip");
  CHECK(run.status == 2);
  CHECK(run.err ==
        "pecan: error: bad.clip: offset 24: corrupt clip: the payload is not a valid "
        "Clip message\n");
}

TEST_CASE("a clip naming a site outside its table is refused by dump and replay", "[cli][input]") {
  // Issue 20: site id 0xFFFFFFFF wrapped resize(id + 1): dump and replay segfaulted, and
  // replay --json printed nothing.
  Workspace w;
  pecan::proto::Clip clip = SmallClip();
  clip.set_step_site(1, 0xFFFFFFFFu);
  pecan::WriteClipFile(w.Path("site.clip"), clip);
  const std::string reason =
      "site.clip: offset 24: corrupt clip: step 1 names site 4294967295, not in the clip's site "
      "table";
  auto dump = w.Pecan("dump site.clip");
  CHECK(dump.status == 2);
  CHECK(dump.err == "pecan: error: " + reason + "\n");
  auto replay = w.Pecan("replay --json site.clip -- /bin/true");
  CHECK(replay.status == 2);
  CHECK(Lines(replay.err) == 1);
  REQUIRE(Lines(replay.out) == 1);
  const auto verdict = nlohmann::json::parse(replay.out);
  CHECK(verdict["verdict"] == "error");
  CHECK(verdict["reason"] == reason);
}

TEST_CASE("a clip whose largest site id is listed is dumped", "[cli][input]") {
  Workspace w;
  pecan::proto::Clip clip = SmallClip();
  clip.mutable_sites(0)->set_id(0xFFFFFFFFu);
  for (int k = 0; k < 3; ++k) clip.set_step_site(k, 0xFFFFFFFFu);
  pecan::WriteClipFile(w.Path("max.clip"), clip);
  auto dump = w.Pecan("dump max.clip");
  CHECK(dump.status == 0);
  CHECK(dump.err.empty());
}

TEST_CASE("a full disk leaves no file and names the cause", "[cli][input]") {
  Workspace w;
  w.Write("small.std", "T0|w(x)|1\nT1|r(x)|2\n");
  // /dev/full is written in place (a device is never renamed over): every write fails.
  for (const char* to : {"pecan", "std"}) {
    auto run = w.Pecan(std::string("convert small.std /dev/full --to ") + to);
    CHECK(run.status == 2);
    CHECK_THAT(run.err, Catch::StartsWith("pecan: error: /dev/full: cannot ") &&
                            Catch::EndsWith(": No space left on device\n"));
    CHECK(Lines(run.err) == 1);
    CHECK(run.out.empty());
  }
  // A directory that does not exist: no file, and the cause.
  auto missing = w.Pecan("convert small.std no/such/dir/out.pecan");
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("no/such/dir/out.pecan") &&
                              Catch::Contains("No such file or directory"));
}
