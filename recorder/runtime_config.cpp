// Reading PECAN_* environment variables into a RuntimeConfig.
// Every variable and its default is described in docs/runtime-env.md.
#include "recorder/runtime_config.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "recorder/runtime_messages.h"

namespace pecan::rt {
namespace {

const char* Env(const char* name) {
  const char* value = getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

bool ReadFlag(const char* name, bool fallback) {
  const char* value = Env(name);
  if (value == nullptr) return fallback;
  if (strcmp(value, "1") == 0) return true;
  if (strcmp(value, "0") == 0) return false;
  RuntimeMessage(name, "=", " is not 0 or 1; using the default");
  return fallback;
}

template <typename Int>
Int ReadInt(const char* name, Int fallback, long low, long high) {
  const char* value = Env(name);
  if (value == nullptr) return fallback;
  char* end = nullptr;
  long parsed = strtol(value, &end, 10);
  if (*end != '\0' || parsed < low || parsed > high) {
    RuntimeMessage(name, " is not a number in the accepted range; using the default");
    return fallback;
  }
  return static_cast<Int>(parsed);
}

std::string ProgramBaseName() {
  char path[4096];
  ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return "program";
  path[length] = '\0';
  const char* slash = strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

}  // namespace

std::string ExpandTracePath(const std::string& pattern, int pid, const std::string& program_name) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      if (pattern[i + 1] == 'p') {
        out += std::to_string(pid);
        ++i;
        continue;
      }
      if (pattern[i + 1] == 'n') {
        out += program_name;
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

const char* ForkPolicyName(ForkPolicy policy) {
  return policy == ForkPolicy::kFollow ? "follow" : "stop";
}

RuntimeConfig ReadRuntimeConfig() {
  RuntimeConfig config;
  config.quiet = ReadFlag("PECAN_QUIET", false);
  SetRuntimeMessagesQuiet(config.quiet);

  const char* mode = Env("PECAN_MODE");
  if (mode == nullptr || strcmp(mode, "off") == 0) {
    config.mode = RuntimeMode::kOff;
  } else if (strcmp(mode, "record") == 0) {
    config.mode = RuntimeMode::kRecord;
  } else if (strcmp(mode, "replay") == 0) {
    config.mode = RuntimeMode::kReplay;
  } else if (strcmp(mode, "heal") == 0) {
    config.mode = RuntimeMode::kHeal;
  } else {
    RuntimeMessage("unknown PECAN_MODE '", mode, "'; running unrecorded");
    config.mode = RuntimeMode::kOff;
  }

  const char* trace = Env("PECAN_TRACE");
  config.trace_path =
      ExpandTracePath(trace != nullptr ? trace : "pecan-%n-%p.pecan", getpid(), ProgramBaseName());
  config.func_events = ReadFlag("PECAN_FUNC_EVENTS", true);
  config.stack_accesses = ReadFlag("PECAN_STACK_ACCESSES", false);
  config.chunk_events = ReadInt<uint32_t>("PECAN_CHUNK_EVENTS", 65536, 1, 1 << 26);
  config.zstd_level = ReadInt<int>("PECAN_ZSTD_LEVEL", 1, -7, 22);
  config.deadlock_wait_ms = ReadInt<uint32_t>("PECAN_DEADLOCK_WAIT_MS", 1500, 0, 86'400'000);

  const char* repeats = Env("PECAN_REPEATS");
  if (repeats == nullptr || strcmp(repeats, "drop") == 0) {
    config.drop_repeats = true;
  } else if (strcmp(repeats, "all") == 0) {
    config.drop_repeats = false;
  } else {
    RuntimeMessage("unknown PECAN_REPEATS '", repeats, "'; using 'drop'");
  }

  const char* fork_policy = Env("PECAN_FORK");
  if (fork_policy == nullptr || strcmp(fork_policy, "stop") == 0) {
    config.fork_policy = ForkPolicy::kStop;
  } else if (strcmp(fork_policy, "follow") == 0) {
    config.fork_policy = ForkPolicy::kFollow;
  } else {
    RuntimeMessage("unknown PECAN_FORK '", fork_policy, "'; using 'stop'");
  }
  return config;
}

}  // namespace pecan::rt
