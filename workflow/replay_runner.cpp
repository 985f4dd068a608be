#include "workflow/replay_runner.h"

namespace pecan::workflow {

std::string SelfExecutable() {
  std::vector<char> buffer(4096);
  ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (n <= 0) return "pecan";
  return std::string(buffer.data(), static_cast<size_t>(n));
}

std::string ShellQuote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-+=./,:@%") == std::string::npos)
    return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string PecanCommandName() {
  namespace fs = std::filesystem;
  const std::string self = SelfExecutable();
  std::error_code error;
  const std::string on_path = FindExecutable("pecan");
  if (!on_path.empty() && fs::equivalent(on_path, self, error)) return "pecan";
  const fs::path relative = fs::path(self).lexically_relative(fs::current_path(error));
  if (error || relative.empty() || *relative.begin() == "..") return self;
  return relative.has_parent_path() ? relative.string() : "./" + relative.string();
}

std::string ReplayCommandLine(const std::string& clip_path,
                              const std::vector<std::string>& command) {
  static const std::string pecan = ShellQuote(PecanCommandName());
  std::string line = pecan + " replay " + ShellQuote(clip_path) + " --";
  for (const auto& word : command) line += " " + ShellQuote(word);
  return line;
}

namespace {

// `pecan replay --json` prints one JSON object; the program's own output may come before it.
nlohmann::json LastJsonObject(const std::string& log_path) {
  std::ifstream in(log_path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (it->empty() || (*it)[0] != '{') continue;
    nlohmann::json json = nlohmann::json::parse(*it, nullptr, false);
    if (json.is_object() && json.contains("verdict")) return json;
  }
  return nullptr;
}

// `pecan replay --json` names the failure after hatching: null, "assertion", "crashed", "exit"
// (non-zero status) or "timeout" (the free run did not end); anything else is kept as given.
void ReadFailure(const nlohmann::json& json, SummaryVerdict& verdict) {
  if (json.contains("failure") && json["failure"].is_string()) verdict.failure = json["failure"];
  if (json.contains("failure_message") && json["failure_message"].is_string())
    verdict.failure_message = json["failure_message"];
  if (json.contains("failure_clip") && json["failure_clip"].is_string())
    verdict.failure_clip = json["failure_clip"];
  if (json.contains("failure_thread") && json["failure_thread"].is_string())
    verdict.failure_thread = json["failure_thread"];
  if (json.contains("failure_site") && json["failure_site"].is_object()) {
    const nlohmann::json& site = json["failure_site"];
    if (site.contains("text") && site["text"].is_string()) verdict.failure_site = site["text"];
    if (site.contains("file") && site["file"].is_string()) verdict.failure_file = site["file"];
    if (site.contains("line") && site["line"].is_number_unsigned())
      verdict.failure_line = site["line"];
  }
  if (json.contains("signal") && json["signal"].is_number_integer())
    verdict.signal = json["signal"];
  if (json.contains("exit_status") && json["exit_status"].is_number_integer())
    verdict.exit_status = json["exit_status"];
}

}  // namespace

std::string LastPecanError(const std::string& log_path) {
  std::ifstream log(log_path);
  std::string line, last;
  const std::string prefix = "pecan: error: ";
  while (std::getline(log, line))
    if (line.rfind(prefix, 0) == 0) last = line.substr(prefix.size());
  return last;
}

SummaryVerdict ReplayClip(const std::string& clip_path, const std::vector<std::string>& command,
                          const ReplayRunSettings& settings, const std::string& log_path,
                          const std::string& failure_clip_path) {
  const double timeout_seconds = settings.timeout_seconds;
  ChildSpec spec;
  spec.argv = {SelfExecutable(),
               "replay",
               "--json",
               "--failure-clip",
               failure_clip_path,
               "--expect-exit",
               std::to_string(settings.expect_exit)};
  if (!settings.before_each.empty())
    spec.argv.insert(spec.argv.end(), {"--before-each", settings.before_each});
  spec.argv.insert(spec.argv.end(), settings.extra_arguments.begin(),
                   settings.extra_arguments.end());
  if (timeout_seconds > 0) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", timeout_seconds);
    spec.argv.insert(spec.argv.end(), {"--timeout", bound});
  }
  spec.argv.insert(spec.argv.end(), {clip_path, "--"});
  spec.argv.insert(spec.argv.end(), command.begin(), command.end());
  spec.stdout_path = log_path;
  spec.stderr_path = log_path;
  // The replay enforces its own bound; this one only guards against a replay that cannot.
  spec.timeout_seconds = timeout_seconds > 0 ? timeout_seconds + 15 : 0;

  SummaryVerdict verdict;
  ChildResult result;
  try {
    result = RunChild(spec);
  } catch (const std::exception& e) {
    verdict.outcome = "error";
    verdict.reason = e.what();
    return verdict;
  }
  verdict.seconds = result.seconds;
  nlohmann::json json = LastJsonObject(log_path);
  if (result.timed_out) {
    verdict.outcome = "infeasible";
    verdict.reason = "the replay did not end within its time bound and was killed";
    return verdict;
  }
  if (!json.is_object()) {
    verdict.outcome = "error";
    const std::string error = LastPecanError(log_path);
    if (!error.empty()) {
      verdict.reason = error + " (see " + log_path + ")";
      return verdict;
    }
    verdict.reason = "pecan replay " +
                     (result.exited ? "exited with status " + std::to_string(result.exit_status)
                                    : "was killed by signal " + std::to_string(result.signal)) +
                     " without a verdict (see " + log_path + ")";
    return verdict;
  }
  std::string outcome = json["verdict"].is_string() ? json["verdict"].get<std::string>() : "";
  verdict.outcome = outcome == "hatched" || outcome == "followed" || outcome == "infeasible" ||
                            outcome == "exposed" || outcome == "deadlocked"
                        ? outcome
                        : "error";
  if (json.contains("events") && json["events"].is_number_unsigned())
    verdict.events = json["events"];
  if (json.contains("reason") && json["reason"].is_string()) verdict.reason = json["reason"];
  if (verdict.outcome == "hatched" || verdict.outcome == "followed" ||
      verdict.outcome == "exposed" || verdict.outcome == "deadlocked")
    ReadFailure(json, verdict);
  if (json.contains("divergence") && json["divergence"].is_string())
    verdict.divergence = json["divergence"];
  if (json.contains("races") && json["races"].is_array()) verdict.races = json["races"];
  if (json.contains("idle_handovers") && json["idle_handovers"].is_number_unsigned())
    verdict.idle_handovers = json["idle_handovers"];
  if (json.contains("unsettled_choices") && json["unsettled_choices"].is_number_unsigned())
    verdict.unsettled_choices = json["unsettled_choices"];
  if (json.contains("races_total") && json["races_total"].is_number_unsigned())
    verdict.races_total = json["races_total"];
  if (verdict.outcome == "error" && verdict.reason.empty())
    verdict.reason = "unknown verdict '" + outcome + "'";
  return verdict;
}

}  // namespace pecan::workflow
