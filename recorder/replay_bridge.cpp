// Replay mode's glue: the recorder's event points call into the replayer's scheduler, and the
// clip's sites (module + offset) are found in this process's address space.
#include "recorder/replay_bridge.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "recorder/module_map.h"
#include "recorder/real_functions.h"
#include "recorder/thread_state.h"
#include "replayer/replay_hooks.h"

namespace pecan::rt {
namespace {

bool replay_mode = false;
pid_t replay_pid = 0;  // a forked child inherits the session but does not replay

bool ReplayingThisProcess() {
  return replay_mode && getpid() == replay_pid;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Maps the clip's modules onto the objects loaded here: by path, else by build-id (the program
// was moved or copied), else by file name.
class ProcessSiteLocator final : public replay::SiteLocator {
 public:
  void Locate(const replay::ReplaySchedule& schedule, std::vector<uint64_t>& runtime_pc) override {
    modules_.Refresh();
    std::unordered_map<uint32_t, uint64_t> base_of;  // clip module id -> load address here
    for (const replay::ScheduleModule& wanted : schedule.modules) {
      if (const LoadedModule* here = Match(wanted)) base_of.emplace(wanted.id, here->load_address);
    }
    runtime_pc.assign(schedule.sites.size(), 0);
    for (size_t i = 0; i < schedule.sites.size(); ++i) {
      const replay::ScheduleSite& site = schedule.sites[i];
      if (site.module == 0) {
        runtime_pc[i] = site.offset;  // recorded outside every module: an absolute address
        continue;
      }
      auto base = base_of.find(site.module);
      if (base != base_of.end()) runtime_pc[i] = base->second + site.offset;
    }
  }

  bool ModuleOf(uint64_t pc, PcModule& where) override {
    const LoadedModule* module = FindModule(pc);
    if (module == nullptr) return false;
    where.path = module->path;
    where.build_id = module->build_id;
    where.load_address = module->load_address;
    return true;
  }

  std::string DescribePc(uint64_t pc) override {
    const LoadedModule* module = FindModule(pc);
    char offset[32];
    if (module == nullptr) {
      std::snprintf(offset, sizeof offset, "0x%llx", static_cast<unsigned long long>(pc));
      return offset;
    }
    std::snprintf(offset, sizeof offset, "+0x%llx",
                  static_cast<unsigned long long>(pc - module->load_address));
    return BaseName(module->path) + offset;
  }

 private:
  // The module holding `pc`, looking again at the loaded objects if none does (a dlopen since).
  const LoadedModule* FindModule(uint64_t pc) {
    if (const LoadedModule* module = modules_.Find(pc)) return module;
    modules_.Refresh();
    return modules_.Find(pc);
  }

  const LoadedModule* Match(const replay::ScheduleModule& wanted) const {
    const auto& loaded = modules_.modules();
    auto find = [&](auto&& same) -> const LoadedModule* {
      auto it = std::find_if(loaded.begin(), loaded.end(),
                             [&](const std::unique_ptr<LoadedModule>& m) { return same(*m); });
      return it == loaded.end() ? nullptr : it->get();
    };
    if (const LoadedModule* m = find([&](const LoadedModule& m) { return m.path == wanted.path; }))
      return m;
    if (!wanted.build_id.empty()) {
      if (const LoadedModule* m =
              find([&](const LoadedModule& m) { return m.build_id == wanted.build_id; }))
        return m;
    }
    const std::string name = BaseName(wanted.path);
    return find([&](const LoadedModule& m) { return BaseName(m.path) == name; });
  }

  ModuleMap modules_;
};

uint32_t ClampSize(uint64_t size) {
  return static_cast<uint32_t>(std::min<uint64_t>(size, std::numeric_limits<uint32_t>::max()));
}

}  // namespace

void StartReplayMode(bool& func_events, bool& stack_accesses) {
  RuntimeScope scope;
  // Ends the process with an ERROR verdict when the clip cannot be used.
  replay::StartReplay(std::make_unique<ProcessSiteLocator>(), REAL(pthread_create));
  const auto& settings = replay::active_session->recorder_settings();
  func_events = settings.func_events();
  stack_accesses = settings.stack_accesses();
  replay_pid = getpid();
  replay_mode = true;
}

bool ReplayModeActive() {
  return replay_mode;
}

void ReplayBeforeEvent(EventKind kind, uint64_t pc, uint64_t target, uint64_t size) {
  RuntimeScope scope;
  replay::OnEvent(kind, pc, target, ClampSize(size));
}

void ReplayBeforeCompareExchange(uint64_t pc, uint64_t target, uint64_t size) {
  RuntimeScope scope;
  if (replay::active_session == nullptr) return;
  replay::EventView event{EventKind::kAtomicRmw, pc, target, ClampSize(size)};
  event.compare_exchange = true;
  replay::active_session->scheduler().OnEvent(event);
}

void ReplayAcquireTurn(EventKind upcoming, uint64_t pc, uint64_t target) {
  RuntimeScope scope;
  replay::AcquireTurnFor(upcoming, pc, target);
}

void ReplayBeginBlocking(EventKind call, uint64_t pc, uint64_t target) {
  RuntimeScope scope;
  replay::BeginBlocking(call, pc, target);
}

void ReplayEndBlocking() {
  RuntimeScope scope;
  replay::EndBlocking();
}

uint32_t ReplayReserveChild(uint32_t serial) {
  RuntimeScope scope;
  return replay::ReserveChild(serial);
}

void ReplayChildForked(uint32_t child) {
  RuntimeScope scope;
  replay::ChildForked(child);
}

void ReplayCancelChild(uint32_t child) {
  RuntimeScope scope;
  replay::CancelChild(child);
}

void ReplayAttachThread(uint32_t child) {
  RuntimeScope scope;
  replay::AttachThread(child);
}

void ReplayDetachThread() {
  RuntimeScope scope;
  replay::DetachThread();
}

bool ReplayConfirmingStuck() {
  return replay::active_session != nullptr && replay::active_session->confirming_stuck();
}

bool ReplayScheduling() {
  return replay::SchedulingActive();
}

void ReplayOnProgramExit(int status) {
  if (!ReplayingThisProcess()) return;
  RuntimeScope scope;
  replay::OnProgramExit(status);
}

void ReplayOnFatalSignal(int signal) {
  if (!ReplayingThisProcess()) return;
  RuntimeScope scope;
  replay::OnFatalSignal(signal);
}

void ReplayOnAssertionFailure(const char* assertion, const char* file, unsigned line,
                              const char* function) {
  if (!ReplayingThisProcess()) return;
  RuntimeScope scope;
  replay::active_session->OnAssertionFailure(assertion, file, line, function);
}

void ReplayCannotStart(const char* reason) {
  {
    RuntimeScope scope;
    replay::active_session->scheduler().Stop({replay::StopCause::kInternal, reason, 0});
  }
  syscall(SYS_exit_group, replay::kReplayStoppedExitStatus);  // Stop has ended it already
  __builtin_unreachable();
}

}  // namespace pecan::rt
