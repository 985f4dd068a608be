#include "workflow/output_directory.h"

namespace pecan::workflow {

OutputDirectory::OutputDirectory(const std::string& dir, const std::string& command,
                                 const std::vector<std::string>& files)
    : dir_(dir), command_(command) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(dir_, error);
  if (!fs::is_directory(dir_))
    throw PecanError(command_ + ": cannot create the output directory " + dir_ + ": " +
                     (error ? error.message() : "a file of that name is in the way"));
  ReadManifest();
  for (const std::string& file : files) {
    const bool directory = !file.empty() && file.back() == '/';
    const std::string name = directory ? file.substr(0, file.size() - 1) : file;
    const fs::path path = fs::path(dir_) / name;
    if (!fs::exists(fs::symlink_status(path, error))) continue;
    if (directory ? fs::is_directory(path, error) : written_.count(name) > 0) continue;
    throw NotOurs(name);
  }
  for (auto it = written_.begin(); it != written_.end();) {
    if (it->second != command_) {
      ++it;
      continue;
    }
    const fs::path path = fs::path(dir_) / it->first;
    if (!fs::is_directory(fs::symlink_status(path, error))) fs::remove(path, error);
    it = written_.erase(it);
  }
  WriteManifest();
  for (const std::string& file : files) {
    if (file.empty() || file.back() != '/') continue;
    fs::create_directories(fs::path(dir_) / file, error);
    if (!fs::is_directory(fs::path(dir_) / file))
      throw PecanError(command_ + ": cannot create " + (fs::path(dir_) / file).string() + ": " +
                       error.message());
  }
}

std::string OutputDirectory::Claim(const std::string& relative) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(dir_) / relative;
  std::lock_guard<std::mutex> guard(mutex_);
  auto known = written_.find(relative);
  if (known == written_.end()) {
    std::error_code error;
    if (fs::exists(fs::symlink_status(path, error))) throw NotOurs(relative);
  }
  if (known == written_.end() || known->second != command_) {
    written_[relative] = command_;
    std::ofstream manifest(ManifestPath(), std::ios::app);
    manifest << command_ << '\t' << relative << '\n';
    if (!manifest.flush()) throw CannotWrite(ManifestPath());
  }
  return path.string();
}

PecanError OutputDirectory::NotOurs(const std::string& relative) const {
  return PecanError(command_ + ": " + (std::filesystem::path(dir_) / relative).string() +
                    " was not written by pecan and would be replaced; choose another -o " +
                    "directory or move it away");
}

PecanError OutputDirectory::CannotWrite(const std::string& path) const {
  return PecanError(command_ + ": cannot write " + path + ": " + std::strerror(errno));
}

void OutputDirectory::ReadManifest() {
  std::ifstream in(ManifestPath());
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    // A path that leaves the directory is not one pecan wrote there.
    if (tab == std::string::npos || line.find("..", tab) != std::string::npos ||
        line.compare(tab + 1, 1, "/") == 0)
      continue;
    written_[line.substr(tab + 1)] = line.substr(0, tab);
  }
}

void OutputDirectory::WriteManifest() {
  const std::string path = ManifestPath();
  const std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    for (const auto& [relative, command] : written_) out << command << '\t' << relative << '\n';
    if (!out.flush()) throw CannotWrite(temporary);
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) throw PecanError(command_ + ": cannot write " + path + ": " + error.message());
}

}  // namespace pecan::workflow
