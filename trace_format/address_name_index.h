// AddressNameIndex: finds the name of an address in a trace's name table — exactly, or as
// "name+offset" inside a named block — and the labels of STD sites kept in that table.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

class AddressNameIndex {
 public:
  // Keeps pointers into `names`, which must outlive the index.
  explicit AddressNameIndex(const std::vector<AddressName>& names);

  // Appends the name of `address` to `out` ("counter", "table+16"); false when unknown.
  bool AppendName(std::string& out, uint64_t address) const;
  // The label of an STD site whose location was not a number (see STD_FORMAT.md), or null.
  const std::string* SiteLabel(uint64_t site_offset) const;

 private:
  std::unordered_map<uint64_t, const std::string*> exact_;
  std::unordered_map<uint64_t, const std::string*> labels_;
  std::vector<const AddressName*> by_address_;
};

}  // namespace pecan
