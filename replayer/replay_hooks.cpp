// StartReplay: loading the clip into the process's one ReplaySession.
#include "replayer/replay_hooks.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "trace_format/clip_file.h"
#include "trace_format/error.h"

namespace pecan::replay {

ReplaySession* active_session = nullptr;

void StartReplay(std::unique_ptr<SiteLocator> locator, ThreadCreateFunction real_pthread_create) {
  ReplayOptions options = ReadReplayOptions();
  std::string problem;
  try {
    if (options.clip_path.empty()) throw PecanError("PECAN_CLIP is not set");
    proto::Clip clip = ReadClipFile(options.clip_path);
    ReplaySession::Environment environment;
    environment.locator = std::move(locator);
    environment.create_thread = real_pthread_create;
    // Never destroyed: exit paths and threads still running at exit keep using it.
    auto* session = new ReplaySession(options, std::move(clip), std::move(environment));
    session->scheduler().AttachMainThread();
    active_session = session;
    session->Start();
    return;
  } catch (const std::exception& error) {
    problem = error.what();
  }
  proto::Verdict verdict;
  verdict.set_outcome(proto::Verdict::ERROR);
  verdict.set_reason("cannot replay: " + problem);
  VerdictFile(options.verdict_path).Write(verdict);
  if (!options.quiet) {
    std::string line = "pecan-rt: replay: cannot replay: " + problem + "\n";
    ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
  }
  syscall(SYS_exit_group, kReplayStoppedExitStatus);
}

}  // namespace pecan::replay
