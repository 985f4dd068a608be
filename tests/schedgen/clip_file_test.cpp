// .clip files: a round trip keeps every field; foreign, truncated, damaged and too-new files
// fail with PecanError naming the file and the byte offset, never a crash.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

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
  auto* thread = clip.add_threads();
  thread->set_id(1);
  thread->set_parent(0);
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
  CHECK_THAT(ErrorOf(good.substr(0, good.size() - 5)), Catch::Contains("truncated clip") &&
                                                          Catch::Contains("payload needs"));
  CHECK_THAT(ErrorOf(good + "junk"), Catch::Contains("stray bytes"));

  std::string bad_encoding = good;
  bad_encoding[12] = 9;
  CHECK_THAT(ErrorOf(bad_encoding), Catch::Contains("offset 12: corrupt clip: unknown payload"));

  // A flipped byte inside the compressed payload: zstd's checksum or the parser catches it.
  for (size_t at : {kClipPreambleBytes + 2, good.size() / 2 + kClipPreambleBytes / 2,
                    good.size() - 2}) {
    std::string damaged = good;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
    CHECK_THAT(ErrorOf(damaged), Catch::Contains("offset 24: corrupt clip"));
  }

  CHECK_THROWS_AS(ReadClipFile(TempPath("does-not-exist.clip")), PecanError);
}

TEST_CASE("a newer major version is refused, a newer minor read", "[schedgen][clip]") {
  std::string newer_major = EncodeClip(SampleClip());
  newer_major[8] = static_cast<char>(kClipFormatMajor + 1);
  CHECK_THAT(ErrorOf(newer_major), Catch::Contains("offset 8") &&
                                       Catch::Contains("newer than this pecan reads"));
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

}  // namespace
}  // namespace pecan
