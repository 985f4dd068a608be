// Source in view for the workflow's reports: a site's path relative to the source root, and a
// few lines of the source file around it, read once per file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "workflow/finding_summary.h"

namespace pecan::workflow {

class SourceExcerpts {
 public:
  // `root`: an absolute directory (ResolveSourceRoot); paths below it are shown relative to it.
  explicit SourceExcerpts(std::string root);

  // `path` relative to the root when below it, else as it is.
  std::string DisplayPath(const std::string& path) const;
  // "examples/lost_update.c:24 (add_batch)", or the site's own text when it has no file.
  std::string DisplaySite(const SummarySite& site) const;

  // Lines line-context .. line+context of the site's file, numbered from 1, clipped to the file;
  // empty when the file cannot be read or has no such line.
  std::vector<std::pair<uint32_t, std::string>> Around(const SummarySite& site,
                                                       uint32_t context = 2);

 private:
  const std::vector<std::string>* Lines(const std::string& file);

  std::string root_;
  std::map<std::string, std::vector<std::string>> files_;  // read ones; empty when unreadable
};

}  // namespace pecan::workflow
