#include "workflow/triage_partition.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

#include "trace_format/error.h"
#include "workflow/finding_summary.h"

namespace pecan::workflow {

ShardSpec ParseShard(const std::string& text, const std::string& what) {
  auto bad = [&](const std::string& why) { return PecanError(what + " " + text + ": " + why); };
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size())
    throw bad("expected K/N, e.g. 0/4 for the first of four shards");
  auto number = [&](const std::string& digits) -> size_t {
    if (digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw bad("expected K/N with whole numbers, e.g. 0/4 for the first of four shards");
    return std::stoul(digits);
  };
  ShardSpec shard{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (shard.count == 0 || shard.count > 100000) throw bad("N must be between 1 and 100000");
  if (shard.index >= shard.count)
    throw bad(
        "K must be below N: shards are numbered from 0 (as SLURM_ARRAY_TASK_ID and "
        "JOB_COMPLETION_INDEX are), so the last of " +
        std::to_string(shard.count) + " is " + std::to_string(shard.count - 1) + "/" +
        std::to_string(shard.count));
  return shard;
}

std::vector<size_t> PartitionByWeight(const std::vector<uint64_t>& weights, size_t count) {
  std::vector<size_t> order(weights.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return weights[a] > weights[b]; });
  // (load, shard), lightest first and the lower shard on a tie.
  using Load = std::pair<uint64_t, size_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads;
  for (size_t shard = 0; shard < count; shard++) loads.emplace(0, shard);
  std::vector<size_t> shard_of(weights.size(), 0);
  for (size_t item : order) {
    auto [load, shard] = loads.top();
    loads.pop();
    shard_of[item] = shard;
    // Every item weighs at least 1, so empty files still spread over the shards.
    loads.emplace(load + std::max<uint64_t>(weights[item], 1), shard);
  }
  return shard_of;
}

std::vector<size_t> ItemsOfShard(const std::vector<uint64_t>& weights, const ShardSpec& shard) {
  const std::vector<size_t> shard_of = PartitionByWeight(weights, shard.count);
  std::vector<size_t> items;
  for (size_t i = 0; i < shard_of.size(); i++)
    if (shard_of[i] == shard.index) items.push_back(i);
  return items;
}

std::string InputListDigest(const std::vector<std::string>& paths) {
  std::string joined;
  for (const auto& path : paths) joined += path + '\n';
  return HexString(StableDigest(joined));
}

}  // namespace pecan::workflow
