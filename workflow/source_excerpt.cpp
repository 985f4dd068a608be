#include "workflow/source_excerpt.h"

#include <filesystem>
#include <fstream>

namespace pecan::workflow {

namespace fs = std::filesystem;

// Far more than any source file: a generated one of this size is not shown.
constexpr size_t kMaxLines = 1000000;
constexpr size_t kMaxLineLength = 240;

SourceExcerpts::SourceExcerpts(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string SourceExcerpts::DisplayPath(const std::string& path) const {
  if (root_.empty() || path.empty() || path.front() != '/') return path;
  const std::string prefix = root_ == "/" ? "/" : root_ + "/";
  if (path.compare(0, prefix.size(), prefix) != 0) return path;
  return fs::path(path.substr(prefix.size())).lexically_normal().string();
}

std::string SourceExcerpts::DisplaySite(const SummarySite& site) const {
  if (site.file.empty()) return site.text;
  std::string text = DisplayPath(site.file);
  if (site.line != 0) text += ":" + std::to_string(site.line);
  if (!site.function.empty()) text += " (" + site.function + ")";
  return text;
}

const std::vector<std::string>* SourceExcerpts::Lines(const std::string& file) {
  auto [it, fresh] = files_.try_emplace(file);
  if (fresh) {
    std::ifstream in(file);
    for (std::string line; in && it->second.size() < kMaxLines && std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.size() > kMaxLineLength) line = line.substr(0, kMaxLineLength) + " ...";
      it->second.push_back(std::move(line));
    }
  }
  return &it->second;
}

std::vector<std::pair<uint32_t, std::string>> SourceExcerpts::Around(const SummarySite& site,
                                                                     uint32_t context) {
  std::vector<std::pair<uint32_t, std::string>> excerpt;
  if (site.file.empty() || site.line == 0) return excerpt;
  const std::vector<std::string>* lines = Lines(site.file);
  if (site.line > lines->size()) return excerpt;
  const uint32_t first = site.line > context ? site.line - context : 1;
  const uint32_t last =
      std::min<uint32_t>(static_cast<uint32_t>(lines->size()), site.line + context);
  for (uint32_t n = first; n <= last; n++) excerpt.emplace_back(n, (*lines)[n - 1]);
  return excerpt;
}

}  // namespace pecan::workflow
