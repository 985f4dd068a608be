// How `pecan triage --shard K/N` splits its work: the K-th of N deterministic partitions of the
// input traces (or of the clips to replay), balanced by size, the same for every shard that is
// given the same inputs, so N machines each take one part without talking to each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pecan::workflow {

// "K/N": shard K (counted from 0, as SLURM_ARRAY_TASK_ID and a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX are) of N.
struct ShardSpec {
  size_t index = 0;
  size_t count = 1;
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Parses "K/N" with 0 <= K < N <= 100000; throws PecanError("<what>: ...") saying what is wrong.
ShardSpec ParseShard(const std::string& text, const std::string& what);

// The shard (0..count-1) of each item: largest first, each to the shard with the least weight so
// far (the lower shard on a tie), items of equal weight in index order. Deterministic: the same
// weights give the same partition.
std::vector<size_t> PartitionByWeight(const std::vector<uint64_t>& weights, size_t count);

// The items of `shard` under PartitionByWeight, in index order.
std::vector<size_t> ItemsOfShard(const std::vector<uint64_t>& weights, const ShardSpec& shard);

// A short digest of the whole input list (paths in order), so that a merge can tell partial
// results of one triage from those of another.
std::string InputListDigest(const std::vector<std::string>& paths);

}  // namespace pecan::workflow
