// MayTriggerRelations: the relation set, its JSON file, and its collection from a trace's
// function entry/exit and lock events (DrFinder's Algorithm 1, MTCollector).
#include "analyzer/may_trigger.h"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzer/may_trigger_keys.h"
#include "trace_format/error.h"
#include "trace_format/output_file.h"

namespace pecan {
namespace {

using nlohmann::json;

constexpr const char* kFormatName = "pecan-may-trigger";
constexpr int kFormatVersion = 1;

// A string -> string object of the document, or an error naming the member.
std::map<std::string, std::string> StringMap(const json& root, const char* member,
                                             const std::string& source) {
  std::map<std::string, std::string> out;
  auto it = root.find(member);
  if (it == root.end()) return out;
  if (!it->is_object()) throw PecanError(source + ": \"" + member + "\" is not an object");
  for (const auto& [key, value] : it->items()) {
    if (!value.is_string()) {
      throw PecanError(source + ": \"" + member + "\"[\"" + key + "\"] is not a string");
    }
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

}  // namespace

void MayTriggerRelations::Add(const std::string& function, const std::string& lock_class) {
  by_function_[function].insert(lock_class);
}

bool MayTriggerRelations::MayTrigger(std::string_view function, std::string_view lock_class) const {
  auto it = by_function_.find(function);
  return it != by_function_.end() && it->second.count(std::string(lock_class)) != 0;
}

void MayTriggerRelations::Merge(const MayTriggerRelations& other) {
  for (const auto& [function, classes] : other.by_function_) {
    by_function_[function].insert(classes.begin(), classes.end());
  }
  entry_sites_.insert(other.entry_sites_.begin(), other.entry_sites_.end());
  global_locks_.insert(other.global_locks_.begin(), other.global_locks_.end());
}

size_t MayTriggerRelations::size() const {
  size_t n = 0;
  for (const auto& [function, classes] : by_function_) n += classes.size();
  return n;
}

void MayTriggerRelations::AddEntrySite(const std::string& site_key, const std::string& function) {
  entry_sites_.emplace(site_key, function);
}

void MayTriggerRelations::AddGlobalLock(const std::string& address_key,
                                        const std::string& lock_class) {
  global_locks_.emplace(address_key, lock_class);
}

std::string MayTriggerRelations::ToJson() const {
  json relations = json::object();
  for (const auto& [function, classes] : by_function_) relations[function] = classes;
  json root{{"format", kFormatName},
            {"version", kFormatVersion},
            {"relations", std::move(relations)},
            {"entry_sites", entry_sites_},
            {"global_locks", global_locks_}};
  // Symbol names may hold any bytes: replace invalid UTF-8 instead of throwing.
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

MayTriggerRelations MayTriggerRelations::FromJson(std::string_view text,
                                                  const std::string& source) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    throw PecanError(source + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  if (!root.is_object() || root.value("format", "") != kFormatName) {
    throw PecanError(source + ": not a may-trigger file (no \"format\": \"" + kFormatName + "\")");
  }
  if (!root.contains("version") || !root["version"].is_number_integer() ||
      root["version"].get<int>() > kFormatVersion) {
    throw PecanError(source + ": unsupported may-trigger file version");
  }
  MayTriggerRelations out;
  auto relations = root.find("relations");
  if (relations != root.end()) {
    if (!relations->is_object()) throw PecanError(source + ": \"relations\" is not an object");
    for (const auto& [function, classes] : relations->items()) {
      if (!classes.is_array()) {
        throw PecanError(source + ": \"relations\"[\"" + function + "\"] is not an array");
      }
      for (const json& c : classes) {
        if (!c.is_string()) {
          throw PecanError(source + ": \"relations\"[\"" + function + "\"] holds a non-string");
        }
        out.Add(function, c.get<std::string>());
      }
    }
  }
  out.entry_sites_ = StringMap(root, "entry_sites", source);
  out.global_locks_ = StringMap(root, "global_locks", source);
  return out;
}

void MayTriggerRelations::Write(const std::string& path) const {
  WriteOutputFile(path, ToJson());
}

MayTriggerRelations MayTriggerRelations::Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PecanError(path + ": cannot open the may-trigger file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return FromJson(text, path);
}

MayTriggerRelations CollectMayTrigger(const Trace& trace, Symbolizer& symbolizer, uint32_t depth) {
  MayTriggerKeys keys(trace, symbolizer);
  MayTriggerRelations out;
  // Functions are interned so the per-acquisition work is integer pairs, turned into strings once.
  std::vector<const std::string*> functions;
  std::unordered_map<const std::string*, uint32_t> function_ids;
  std::vector<std::string> classes;
  std::unordered_map<std::string, uint32_t> class_ids;
  std::unordered_set<uint64_t> pairs;  // function id << 32 | class id
  std::unordered_set<SiteId> entry_sites_seen;
  std::unordered_set<uint64_t> locks_seen;  // addresses: each global one gets its runtime alias
  std::vector<std::vector<uint32_t>> stacks(trace.threads.size());

  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    const ThreadId t = trace.thread[i];
    if (t >= stacks.size()) stacks.resize(t + 1);
    std::vector<uint32_t>& stack = stacks[t];
    switch (trace.kind[i]) {
      case EventKind::kFuncEntry: {
        const std::string& key = keys.FunctionKey(i);
        auto [it, inserted] = function_ids.try_emplace(&key, functions.size());
        if (inserted) functions.push_back(&key);
        stack.push_back(it->second);
        if (trace.addr[i] == 0 && entry_sites_seen.insert(trace.site[i]).second) {
          const std::string site_key = SiteKey(trace, trace.site[i]);
          if (site_key != key) out.AddEntrySite(site_key, key);
        }
        break;
      }
      case EventKind::kFuncExit:
        if (!stack.empty()) stack.pop_back();
        break;
      case EventKind::kThreadEnd:
        stack.clear();
        break;
      case EventKind::kAlloc:
        keys.OnAlloc(trace.addr[i], trace.size[i], trace.site[i]);
        break;
      case EventKind::kFree:
        keys.OnFree(trace.addr[i]);
        break;
      case EventKind::kLock:
      case EventKind::kReadLock: {
        if (stack.empty() || depth == 0) break;
        std::string lock_class = keys.LockClassKey(trace.addr[i]);
        if (locks_seen.insert(trace.addr[i]).second && !lock_class.starts_with("alloc@") &&
            !lock_class.starts_with("lock@")) {
          if (auto address_key = keys.GlobalAddressKey(trace.addr[i])) {
            out.AddGlobalLock(*address_key, lock_class);
          }
        }
        auto [it, inserted] = class_ids.try_emplace(lock_class, classes.size());
        if (inserted) classes.push_back(std::move(lock_class));
        const size_t innermost = stack.size() > depth ? stack.size() - depth : 0;
        for (size_t k = innermost; k < stack.size(); ++k) {
          pairs.insert(uint64_t{stack[k]} << 32 | it->second);
        }
        break;
      }
      default:
        break;
    }
  }
  for (uint64_t pair : pairs) {
    out.Add(*functions[pair >> 32], classes[static_cast<uint32_t>(pair)]);
  }
  return out;
}

}  // namespace pecan
