// LibraryRuntime: the program's interpreter (PT_INTERP) lists the libraries it would load, with
// the paths it resolves them to; the runtime's line among them says which file to preload.
#include "workflow/library_runtime.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "workflow/program_lookup.h"

namespace pecan::workflow {
namespace {

// The dynamic loader named by the program's PT_INTERP; "" for a static or unreadable file.
std::string Interpreter(const std::string& program) {
  std::string interpreter;
  elf_version(EV_CURRENT);
  const int fd = ::open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return interpreter;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  size_t count = 0;
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &count) == 0) {
    for (size_t i = 0; i < count; ++i) {
      GElf_Phdr header;
      if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr || header.p_type != PT_INTERP)
        continue;
      size_t size = 0;
      const char* image = elf_rawfile(elf, &size);
      if (image != nullptr && header.p_offset + header.p_filesz <= size && header.p_filesz > 0)
        interpreter.assign(image + header.p_offset, header.p_filesz - 1);  // without its NUL
      break;
    }
  }
  if (elf != nullptr) elf_end(elf);
  ::close(fd);
  return interpreter;
}

// What `interpreter --list program` prints (the loader maps the libraries, runs none of their
// code); "" when it cannot run.
std::string ListLoadedLibraries(const std::string& interpreter, const std::string& program) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> argv{interpreter, "--list", program};
  std::vector<std::string> envp = MergedEnvironment({});
  std::vector<char*> argv_c = CStrings(argv);
  std::vector<char*> envp_c = CStrings(envp);
  pid_t pid = 0;
  const int error =
      posix_spawn(&pid, interpreter.c_str(), &actions, nullptr, argv_c.data(), envp_c.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string listing;
  if (error == 0) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      listing.append(buffer, static_cast<size_t>(n));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(pipe_fds[0]);
  return listing;
}

}  // namespace

std::string LibraryRuntime(const std::string& program, const ProgramFile& facts) {
  if (!facts.is_elf || facts.loads_runtime || RuntimePreloaded()) return "";
  const std::string interpreter = Interpreter(program);
  if (interpreter.empty()) return "";
  // Lines look like "\tlibpecan_rt.so => /path/libpecan_rt.so (0x7f...)".
  const std::string wanted = std::string(kRuntimeLibrary) + " => /";
  std::istringstream lines(ListLoadedLibraries(interpreter, program));
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(wanted);
    if (at == std::string::npos) continue;
    const size_t path = at + wanted.size() - 1;
    const size_t end = line.rfind(" (");
    return line.substr(path, (end == std::string::npos || end < path ? line.size() : end) - path);
  }
  return "";
}

void PreloadLibraryRuntime(const std::string& runtime,
                           std::map<std::string, std::string>& environment) {
  if (runtime.empty()) return;
  const char* preload = std::getenv("LD_PRELOAD");
  environment["LD_PRELOAD"] =
      preload != nullptr && *preload != '\0' ? runtime + ":" + preload : runtime;
}

}  // namespace pecan::workflow
