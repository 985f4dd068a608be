// AddressNameIndex: exact hash lookup first, then the enclosing named block by binary search.
#include "trace_format/address_name_index.h"

#include <algorithm>
#include <charconv>

#include "trace_format/std_vocabulary.h"

namespace pecan {

AddressNameIndex::AddressNameIndex(const std::vector<AddressName>& names) {
  for (const auto& n : names) {
    if (n.size == 0 && (n.address & kStdLabelSiteBit)) {
      labels_.emplace(n.address, &n.name);
    } else {
      exact_.emplace(n.address, &n.name);
      by_address_.push_back(&n);
    }
  }
  std::sort(by_address_.begin(), by_address_.end(),
            [](const AddressName* a, const AddressName* b) { return a->address < b->address; });
}

bool AddressNameIndex::AppendName(std::string& out, uint64_t address) const {
  if (auto it = exact_.find(address); it != exact_.end()) {
    out += *it->second;
    return true;
  }
  auto upper = std::upper_bound(by_address_.begin(), by_address_.end(), address,
                                [](uint64_t a, const AddressName* n) { return a < n->address; });
  if (upper == by_address_.begin()) return false;
  const AddressName* n = *(upper - 1);
  if (address - n->address >= n->size) return false;
  out += n->name;
  out += '+';
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, address - n->address);
  out.append(digits, end);
  return true;
}

const std::string* AddressNameIndex::SiteLabel(uint64_t site_offset) const {
  auto it = labels_.find(site_offset);
  return it == labels_.end() ? nullptr : it->second;
}

}  // namespace pecan
