// .clip files: a round trip keeps every field; foreign, truncated, damaged and too-new files
// fail with PecanError naming the file and the byte offset, never a crash.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "schedgen/clip_dump.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/version.h"

namespace pecan {
namespace {

proto::Clip SampleClip() {
  proto::Clip clip;
  clip.set_trace_hash("0123456789abcdef");
  clip.set_program("/usr/bin/app");
  clip.add_args("--threads");
  clip.add_args("4");
  auto* module = clip.add_modules();
  module->set_id(1);
  module->set_path("/usr/bin/app");
  module->set_build_id(std::string("\x01\x02\xff", 3));
  proto::Finding* finding = clip.mutable_finding();
  finding->set_id("race-1234");
  finding->set_pattern("race");
  finding->set_variant("W-R");
  auto* event = finding->add_events();
  event->set_index(2);
  event->set_thread(0);
  event->set_kind(proto::WRITE);
  event->set_address(0x1000);
  clip.add_threads()->set_id(0);
  auto* thread = clip.add_threads();
  thread->set_id(1);
  thread->set_parent(0);
  for (uint32_t site_id : {7u, 10u, 11u, 12u, 13u, 14u}) {
    auto* site = clip.add_sites();
    site->set_id(site_id);
    site->set_module(1);
    site->set_offset(0x400 + site_id);
  }
  // 3 steps by T0, 2 by T1.
  clip.add_run_thread(0);
  clip.add_run_length(3);
  clip.add_run_thread(1);
  clip.add_run_length(2);
  for (int k = 0; k < 5; ++k) {
    clip.add_step_kind(k % 2 ? proto::READ : proto::WRITE);
    clip.add_step_site(static_cast<uint32_t>(10 + k));
    clip.add_step_origin(static_cast<uint64_t>(k * 3));
  }
  clip.add_moved_steps(3);
  clip.add_anomaly_steps(3);
  clip.add_anomaly_steps(4);
  clip.set_generator("race");
  clip.mutable_settings()->set_func_events(true);
  return clip;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("pecan_clip_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string ErrorOf(const std::string& bytes) {
  try {
    DecodeClip(bytes, "x.clip");
  } catch (const PecanError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("clip file round trip keeps every field", "[schedgen][clip]") {
  const proto::Clip clip = SampleClip();
  const std::string path = TempPath("roundtrip.clip");
  const uint64_t size = WriteClipFile(path, clip);
  CHECK(size == std::filesystem::file_size(path));
  const proto::Clip back = ReadClipFile(path);
  std::filesystem::remove(path);
  CHECK(back.format_major() == kClipFormatMajor);
  CHECK(back.format_minor() == kClipFormatMinor);
  proto::Clip expected = clip;
  expected.set_format_major(kClipFormatMajor);
  expected.set_format_minor(kClipFormatMinor);
  CHECK(back.SerializeAsString() == expected.SerializeAsString());
  CHECK(back.modules(0).build_id() == std::string("\x01\x02\xff", 3));
}

TEST_CASE("clip files are compressed", "[schedgen][clip]") {
  proto::Clip clip = SampleClip();
  for (int k = 0; k < 100000; ++k) {
    clip.add_step_kind(proto::READ);
    clip.add_step_site(7);
    clip.add_step_origin(static_cast<uint64_t>(k));
  }
  clip.set_run_length(0, clip.run_length(0) + 100000);
  const std::string bytes = EncodeClip(clip);
  CHECK(bytes.size() < clip.ByteSizeLong() / 2);
  CHECK(DecodeClip(bytes, "big.clip").step_origin_size() == 100005);
}

TEST_CASE("foreign and damaged clip files fail with the file and offset", "[schedgen][clip]") {
  const std::string good = EncodeClip(SampleClip());

  CHECK_THAT(ErrorOf("hello world, not a clip at all"),
             Catch::StartsWith("x.clip: offset 0: not a pecan clip"));
  CHECK_THAT(ErrorOf(""), Catch::Contains("not a pecan clip"));
  CHECK_THAT(ErrorOf(good.substr(0, 12)), Catch::Contains("offset 12: truncated clip"));
  CHECK_THAT(ErrorOf(good.substr(0, good.size() - 5)),
             Catch::Contains("truncated clip") && Catch::Contains("payload needs"));
  CHECK_THAT(ErrorOf(good + "junk"), Catch::Contains("stray bytes"));

  std::string bad_encoding = good;
  bad_encoding[12] = 9;
  CHECK_THAT(ErrorOf(bad_encoding), Catch::Contains("offset 12: corrupt clip: unknown payload"));

  // A flipped byte inside the compressed payload: zstd's checksum or the parser catches it.
  for (size_t at :
       {kClipPreambleBytes + 2, good.size() / 2 + kClipPreambleBytes / 2, good.size() - 2}) {
    std::string damaged = good;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
    CHECK_THAT(ErrorOf(damaged), Catch::Contains("offset 24: corrupt clip"));
  }

  CHECK_THROWS_AS(ReadClipFile(TempPath("does-not-exist.clip")), PecanError);
}

TEST_CASE("a newer major version is refused, a newer minor read", "[schedgen][clip]") {
  std::string newer_major = EncodeClip(SampleClip());
  newer_major[8] = static_cast<char>(kClipFormatMajor + 1);
  CHECK_THAT(ErrorOf(newer_major),
             Catch::Contains("offset 8") && Catch::Contains("newer than this pecan reads"));
  std::string newer_minor = EncodeClip(SampleClip());
  newer_minor[10] = static_cast<char>(kClipFormatMinor + 7);
  CHECK(ErrorOf(newer_minor).empty());
}

TEST_CASE("a clip whose columns disagree is corrupt", "[schedgen][clip]") {
  proto::Clip clip = SampleClip();
  clip.add_step_origin(99);  // one more origin than steps
  CHECK_THAT(ErrorOf(EncodeClip(clip)), Catch::Contains("disagree on the number of steps"));
  proto::Clip past = SampleClip();
  past.add_anomaly_steps(5);
  CHECK_THAT(ErrorOf(EncodeClip(past)), Catch::Contains("past the schedule"));
}

// A zstd frame of 17 bytes that declares `size` bytes of content and holds one RLE byte.
std::string ZstdFrameClaiming(uint64_t size) {
  std::string frame = "\x28\xb5\x2f\xfd";
  frame += '\xe0';  // single segment, 8-byte content size, no checksum
  for (int i = 0; i < 8; ++i) frame += static_cast<char>(size >> (8 * i));
  frame += std::string("\x0b\x00\x00x", 4);  // last block, RLE, 1 byte
  return frame;
}

std::string ClipPreambleFor(const std::string& payload) {
  std::string bytes = EncodeClip(SampleClip()).substr(0, kClipPreambleBytes);
  for (int i = 0; i < 8; ++i) bytes[16 + i] = static_cast<char>(payload.size() >> (8 * i));
  return bytes + payload;
}

TEST_CASE("a 41-byte clip claiming 4 GiB is refused before allocating", "[schedgen][clip]") {
  // Issue 20: this file made `pecan dump` allocate 4.2 GB.
  const std::string bomb = ClipPreambleFor(ZstdFrameClaiming(0xFFFFFFFFu));
  REQUIRE(bomb.size() == 41);
  CHECK_THAT(ErrorOf(bomb), Catch::StartsWith("x.clip: offset 24: corrupt clip: implausible "
                                              "decoded size 4294967295 for 17 compressed bytes"));
}

TEST_CASE("every id in a clip names an entry of its own tables", "[schedgen][clip]") {
  // Issue 20: site id 0xFFFFFFFF wrapped `resize(id + 1)` to 0 and `pecan dump` segfaulted.
  proto::Clip unknown_site = SampleClip();
  unknown_site.set_step_site(2, 0xFFFFFFFFu);
  CHECK_THAT(ErrorOf(EncodeClip(unknown_site)),
             Catch::StartsWith("x.clip: offset 24: corrupt clip: step 2 names site 4294967295"));

  proto::Clip unknown_thread = SampleClip();
  unknown_thread.set_run_thread(1, 0xFFFFFFFFu);
  CHECK_THAT(ErrorOf(EncodeClip(unknown_thread)),
             Catch::Contains("run 1 names thread 4294967295, not in the table of 2 threads"));

  proto::Clip far_thread = SampleClip();
  far_thread.mutable_threads(1)->set_id(0x7FFFFFFF);
  CHECK_THAT(ErrorOf(EncodeClip(far_thread)), Catch::Contains("thread id 2147483647"));

  proto::Clip twice = SampleClip();
  twice.mutable_threads(1)->set_id(0);
  CHECK_THAT(ErrorOf(EncodeClip(twice)), Catch::Contains("thread id 0 is repeated"));

  proto::Clip orphan = SampleClip();
  orphan.mutable_threads(1)->set_parent(9);
  CHECK_THAT(ErrorOf(EncodeClip(orphan)), Catch::Contains("names an unknown parent 9"));

  proto::Clip site_twice = SampleClip();
  site_twice.mutable_sites(1)->set_id(7);
  CHECK_THAT(ErrorOf(EncodeClip(site_twice)), Catch::Contains("site 7 is listed twice"));

  proto::Clip no_module = SampleClip();
  no_module.mutable_sites(0)->set_module(5);
  CHECK_THAT(ErrorOf(EncodeClip(no_module)), Catch::Contains("names an unknown module 5"));

  proto::Clip event_thread = SampleClip();
  event_thread.mutable_finding()->mutable_events(0)->set_thread(3);
  CHECK_THAT(ErrorOf(EncodeClip(event_thread)), Catch::Contains("finding event 0 names thread 3"));

  proto::Clip moved = SampleClip();
  moved.add_moved_steps(0xFFFFFFFFFFull);
  CHECK_THAT(ErrorOf(EncodeClip(moved)), Catch::Contains("moved step 1099511627775 is past"));
}

TEST_CASE("a clip with the largest site id is dumped without a huge table", "[schedgen][clip]") {
  proto::Clip clip = SampleClip();
  clip.mutable_sites(1)->set_id(0xFFFFFFFFu);
  clip.set_step_site(0, 0xFFFFFFFFu);
  const proto::Clip back = DecodeClip(EncodeClip(clip), "max.clip");
  for (const char* format : {"text", "json"}) {
    std::ostringstream out;
    DumpClip(back, format, out, false);
    CHECK(out.str().find("site") != std::string::npos);
  }
}

}  // namespace
}  // namespace pecan
