// The race search's per-location storage: BlockVector (elements stay where they are and keep
// their values as the array grows through its doubling blocks into its fixed ones), ChunkListPool
// (many lists sharing chunks, freed chunks reused: against sorted std::vector models under random
// operations), ClassIndex (a class found by key whether the index walks its records or, past
// kListed, looks in its table; classes made not to be kept are found only by a walk) and
// ByteHeads (a value per byte against a std::map, before and after it turns into an array).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "analyzer/block_vector.h"
#include "analyzer/byte_heads.h"
#include "analyzer/chunk_list_pool.h"
#include "analyzer/class_index.h"
#include "analyzer/flat_hash_map.h"
#include "scrambler.h"

namespace pecan {
namespace {

TEST_CASE("BlockVector keeps its elements in place and their values as it grows") {
  BlockVector<uint64_t, 2, 5> v;  // blocks of 4, 4, 8, 16, then 32 elements
  std::vector<const uint64_t*> where;
  for (uint64_t i = 0; i < 300; ++i) {
    v.push_back(i * 7 + 1);
    where.push_back(&v[i]);
    REQUIRE(v.size() == i + 1);
    REQUIRE(v.back() == i * 7 + 1);
  }
  for (uint64_t i = 0; i < 300; ++i) {
    REQUIRE(v[i] == i * 7 + 1);
    REQUIRE(&v[i] == where[i]);
  }
  // Distinct elements: no two indices share a slot.
  v[3] = 1000;
  v[4] = 2000;
  v[31] = 3000;
  v[32] = 4000;
  REQUIRE(v[3] == 1000);
  REQUIRE(v[4] == 2000);
  REQUIRE(v[31] == 3000);
  REQUIRE(v[32] == 4000);
  REQUIRE(v[2] == 2 * 7 + 1);
  REQUIRE(v[5] == 5 * 7 + 1);
  REQUIRE(v[30] == 30 * 7 + 1);
  REQUIRE(v[33] == 33 * 7 + 1);

  BlockVector<uint32_t> defaults;  // the analyzer's shape: 8 doubling to 4096
  for (uint32_t i = 0; i < 20000; ++i) defaults.push_back(i ^ 0x5555);
  for (uint32_t i = 0; i < 20000; ++i) REQUIRE(defaults[i] == (i ^ 0x5555));
}

// A list's values, sorted (a list has no order).
std::vector<uint32_t> ListValues(ChunkListPool& pool, uint32_t head) {
  std::vector<uint32_t> values;
  pool.Filter(&head, [&](uint32_t v) {
    values.push_back(v);
    return true;
  });
  std::sort(values.begin(), values.end());
  return values;
}

TEST_CASE("ChunkListPool's lists match a model under random pushes, filters and clears") {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Scrambler next(seed);
    ChunkListPool pool;
    constexpr int kLists = 7;
    std::vector<uint32_t> heads(kLists, ChunkListPool::kNil);
    std::vector<std::vector<uint32_t>> model(kLists);  // each list's values, sorted
    uint32_t serial = 0;  // values are distinct, so a value visited twice shows
    for (int step = 0; step < 3000; ++step) {
      const uint32_t l = next() % kLists;
      const uint32_t op = next() % 20;
      if (op < 13) {
        const uint32_t value = serial++;
        pool.Push(&heads[l], value);
        model[l].insert(std::lower_bound(model[l].begin(), model[l].end(), value), value);
      } else if (op < 19) {
        // Keep each value with a chance of 0 to 100%, as a walk or a sweep does; every value is
        // offered once.
        const uint32_t keep_percent = next() % 5 * 25;
        std::vector<uint32_t> offered;
        std::vector<uint32_t> kept;
        pool.Filter(&heads[l], [&](uint32_t v) {
          offered.push_back(v);
          const bool keep = next() % 100 < keep_percent;
          if (keep) kept.push_back(v);
          return keep;
        });
        std::sort(offered.begin(), offered.end());
        REQUIRE(offered == model[l]);
        std::sort(kept.begin(), kept.end());
        model[l] = kept;
        if (kept.empty()) REQUIRE(heads[l] == ChunkListPool::kNil);
      } else {
        pool.Clear(&heads[l]);
        model[l].clear();
        REQUIRE(heads[l] == ChunkListPool::kNil);
      }
      // Every list holds its model's values; held() has room for them all.
      size_t in_lists = 0;
      for (int m = 0; m < kLists; ++m) {
        REQUIRE(ListValues(pool, heads[m]) == model[m]);
        in_lists += model[m].size();
      }
      REQUIRE(pool.held() >= in_lists);
      REQUIRE(pool.held() <= pool.made() * ChunkListPool::kPerChunk);
    }
  }
}

TEST_CASE("ChunkListPool packs values in chunks and reuses emptied ones") {
  ChunkListPool pool;
  uint32_t a = ChunkListPool::kNil;
  for (uint32_t v = 0; v < 3 * ChunkListPool::kPerChunk; ++v) pool.Push(&a, v);
  REQUIRE(pool.made() == 3);  // full chunks: a chunk per kPerChunk values
  REQUIRE(pool.held() == 3 * ChunkListPool::kPerChunk);
  pool.Push(&a, 100);
  REQUIRE(pool.made() == 4);
  // Dropping all but two values frees all but one chunk; new values fill it, then the freed ones.
  pool.Filter(&a, [](uint32_t v) { return v == 5 || v == 100; });
  REQUIRE(ListValues(pool, a) == std::vector<uint32_t>{5, 100});
  REQUIRE(pool.held() == ChunkListPool::kPerChunk);
  uint32_t b = ChunkListPool::kNil;
  for (uint32_t v = 0; v < 3 * ChunkListPool::kPerChunk; ++v) pool.Push(&b, 200 + v);
  REQUIRE(pool.made() == 4);
  pool.Push(&a, 101);  // a's chunk has room
  REQUIRE(pool.made() == 4);
  REQUIRE(ListValues(pool, a) == std::vector<uint32_t>{5, 100, 101});
}

TEST_CASE("ChunkListPool reuses the chunks of cleared lists, then makes new ones") {
  ChunkListPool pool;
  constexpr uint32_t kPer = ChunkListPool::kPerChunk;
  std::vector<uint32_t> heads(3, ChunkListPool::kNil);
  for (uint32_t l = 0; l < 3; ++l)
    for (uint32_t v = 0; v < (2 + l) * kPer; ++v) pool.Push(&heads[l], v);  // 2 + 3 + 4 chunks
  REQUIRE(pool.made() == 9);
  pool.Clear(&heads[0]);
  pool.Clear(&heads[2]);
  REQUIRE(pool.held() == 9 * kPer);  // cleared lists count until their chunks are reused
  uint32_t fresh = ChunkListPool::kNil;
  for (uint32_t v = 0; v < 6 * kPer; ++v) pool.Push(&fresh, v);
  REQUIRE(pool.made() == 9);
  pool.Push(&fresh, 6 * kPer);  // none free: a new chunk
  REQUIRE(pool.made() == 10);
  std::vector<uint32_t> expected(6 * kPer + 1);
  std::iota(expected.begin(), expected.end(), 0u);
  REQUIRE(ListValues(pool, fresh) == expected);  // no stale value of a cleared list
  std::vector<uint32_t> untouched(3 * kPer);     // list 1 is as it was
  std::iota(untouched.begin(), untouched.end(), 0u);
  REQUIRE(ListValues(pool, heads[1]) == untouched);
}

uint64_t KeyHash(uint32_t key) {
  return MixHash(key * 0x9E3779B97F4A7C15ull);
}

TEST_CASE("ClassIndex finds each class by key, walking its records or in its table") {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    Scrambler next(seed);
    ClassIndex index;
    std::vector<uint32_t> records;    // each class's key, by number
    std::map<uint32_t, uint32_t> of;  // key -> its class
    std::set<uint32_t> gone;          // keys of classes not kept: no later access has them
    const uint32_t keys = 5 + next() % 200;
    for (int step = 0; step < 600; ++step) {
      const uint32_t key = next() % keys;
      if (gone.count(key)) continue;
      const auto classes = static_cast<uint32_t>(records.size());
      const uint32_t found =
          index.Find(classes, KeyHash(key), [&](uint32_t id) { return records[id] == key; });
      if (auto it = of.find(key); it != of.end()) {
        REQUIRE(found == it->second);
        continue;
      }
      REQUIRE(found == ClassIndex::kNone);
      const bool keep = next() % 4 != 0;
      records.push_back(key);
      of[key] = classes;
      if (!keep) gone.insert(key);
      index.Add(classes, KeyHash(key), keep, [&](uint32_t id) { return KeyHash(records[id]); });
    }
    if (keys > 2 * ClassIndex::kListed) REQUIRE(records.size() > ClassIndex::kListed);
  }
}

TEST_CASE("ByteHeads keeps a value per byte as a table and as an array") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Scrambler next(seed);
    const uint64_t begin = 0x7f0000001000 + next() % 64;
    const uint64_t span = 1 + next() % 3000;
    ByteHeads heads(begin, begin + span);
    std::map<uint64_t, uint32_t> model;
    bool saw_table = false;  // with two values or more
    for (uint32_t step = 0; step < 4000; ++step) {
      const uint64_t at = begin + next() % span;
      uint32_t& slot = heads.Slot(at);
      REQUIRE(slot == (model.count(at) ? model[at] : ByteHeads::kNil));
      slot = step;
      model[at] = step;
      saw_table |= !heads.IsArray() && model.size() >= 2;
      // The array comes once one byte in kArrayAt has a value, not before.
      if (model.size() * ByteHeads::kArrayAt >= span) REQUIRE(heads.IsArray());
      if ((model.size() + 1) * ByteHeads::kArrayAt < span) REQUIRE(!heads.IsArray());
      // Every byte, and bytes just outside the range (kNil there).
      if (step % 500 == 0 || step == 3999) {
        for (uint64_t b = begin - 9; b < begin + span + 9; ++b) {
          const auto it = model.find(b);
          REQUIRE(heads.At(b) == (it == model.end() ? ByteHeads::kNil : it->second));
        }
        // The values of ranges narrow and wide (wider than the values held: a walk of the
        // table while it is one), reaching past the range on either side.
        for (int range = 0; range < 40; ++range) {
          const uint64_t from = begin - 5 + next() % (span + 10);
          const uint64_t end = from + (range % 2 == 0 ? next() % 12 : next() % (2 * span + 10));
          std::multiset<uint32_t> expected, got;
          for (auto it = model.lower_bound(from); it != model.end() && it->first < end; ++it)
            expected.insert(it->second);
          heads.ForEachIn(from, end, [&](uint32_t value) { got.insert(value); });
          REQUIRE(got == expected);
        }
      }
    }
    if (span > 4 * ByteHeads::kArrayAt) REQUIRE(saw_table);
    REQUIRE(heads.IsArray());  // it turned into an array on the way
  }
}

}  // namespace
}  // namespace pecan
