// The race search's per-location storage: BlockVector (elements stay where they are and keep
// their values as the array grows through its doubling blocks into its fixed ones), ListNodePool
// (many lists sharing nodes, freed nodes reused: against std::vector models under random
// operations), ClassIndex (a class found by key whether the index walks its records or, past
// kListed, looks in its table; classes made not to be kept are found only by a walk) and
// ByteHeads (a value per byte against a std::map, before and after it turns into an array).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "analyzer/block_vector.h"
#include "analyzer/byte_heads.h"
#include "analyzer/class_index.h"
#include "analyzer/flat_hash_map.h"
#include "analyzer/list_node_pool.h"
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

TEST_CASE("ListNodePool's lists match a model under random pushes, erases and clears") {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Scrambler next(seed);
    ListNodePool pool;
    constexpr int kLists = 7;
    std::vector<uint32_t> heads(kLists, ListNodePool::kNil);
    std::vector<std::vector<uint32_t>> model(kLists);  // each list from its head
    size_t cleared = 0;                                // nodes in cleared lists, reused or not
    for (int step = 0; step < 3000; ++step) {
      const uint32_t l = next() % kLists;
      const uint32_t op = next() % 10;
      if (op < 6) {
        const uint32_t value = next();
        const size_t made = pool.made();
        size_t listed = 0;
        for (const auto& m : model) listed += m.size();
        const bool any_free = listed < made;
        pool.Push(&heads[l], value);
        model[l].insert(model[l].begin(), value);
        REQUIRE(pool.made() == (any_free ? made : made + 1));  // a free node is reused first
      } else if (op < 9) {
        if (model[l].empty()) continue;
        // Erase the k-th node, walking links as the race search does.
        const size_t k = next() % model[l].size();
        uint32_t* link = &heads[l];
        for (size_t at = 0; at < k; ++at) link = &pool[*link].next;
        pool.Erase(link);
        model[l].erase(model[l].begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        pool.Clear(&heads[l]);
        cleared += model[l].size();
        model[l].clear();
        REQUIRE(heads[l] == ListNodePool::kNil);
      }
      // Every list holds its model's values, in order; held() counts them all, and at most the
      // nodes of cleared lists besides (Push reuses them before it makes new ones).
      size_t in_lists = 0;
      for (int m = 0; m < kLists; ++m) {
        std::vector<uint32_t> got;
        for (uint32_t n = heads[m]; n != ListNodePool::kNil; n = pool[n].next)
          got.push_back(pool[n].value);
        REQUIRE(got == model[m]);
        in_lists += got.size();
      }
      REQUIRE(pool.held() >= in_lists);
      REQUIRE(pool.held() <= in_lists + cleared);
    }
  }
}

TEST_CASE("ListNodePool reuses freed nodes before making new ones") {
  ListNodePool pool;
  uint32_t a = ListNodePool::kNil;
  uint32_t b = ListNodePool::kNil;
  for (uint32_t v = 0; v < 10; ++v) pool.Push(&a, v);
  std::vector<uint32_t> nodes;
  for (uint32_t n = a; n != ListNodePool::kNil; n = pool[n].next) nodes.push_back(n);
  pool.Erase(&pool[a].next);  // one node freed on its own, then the nine of the list
  pool.Clear(&a);
  for (uint32_t v = 0; v < 10; ++v) pool.Push(&b, 100 + v);
  std::vector<uint32_t> reused;
  for (uint32_t n = b; n != ListNodePool::kNil; n = pool[n].next) reused.push_back(n);
  std::sort(nodes.begin(), nodes.end());
  std::sort(reused.begin(), reused.end());
  REQUIRE(reused == nodes);  // no eleventh node was made
  REQUIRE(pool.made() == 10);
  REQUIRE(pool.held() == 10);
}

TEST_CASE("ListNodePool reuses the nodes of several cleared lists, then makes new ones") {
  ListNodePool pool;
  std::vector<uint32_t> heads(3, ListNodePool::kNil);
  for (uint32_t l = 0; l < 3; ++l)
    for (uint32_t v = 0; v < 5 + l; ++v) pool.Push(&heads[l], v);  // 5 + 6 + 7 nodes
  pool.Clear(&heads[0]);
  pool.Clear(&heads[2]);
  REQUIRE(pool.held() == 18);  // cleared lists count until their nodes are reused
  uint32_t fresh = ListNodePool::kNil;
  for (uint32_t v = 0; v < 12; ++v) pool.Push(&fresh, v);
  REQUIRE(pool.made() == 18);
  pool.Push(&fresh, 12);  // none free: a new node
  REQUIRE(pool.made() == 19);
  REQUIRE(pool.held() == 19);
  std::vector<uint32_t> values;
  for (uint32_t n = fresh; n != ListNodePool::kNil; n = pool[n].next)
    values.push_back(pool[n].value);
  REQUIRE(values.size() == 13);
  for (uint32_t k = 0; k < 13; ++k) REQUIRE(values[k] == 12 - k);
  size_t untouched = 0;  // list 1 is as it was
  for (uint32_t n = heads[1]; n != ListNodePool::kNil; n = pool[n].next) ++untouched;
  REQUIRE(untouched == 6);
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
    bool saw_sparse_and_set = false;
    for (uint32_t step = 0; step < 4000; ++step) {
      const uint64_t at = begin + next() % span;
      uint32_t& slot = heads.Slot(at);
      REQUIRE(slot == (model.count(at) ? model[at] : ByteHeads::kNil));
      slot = step;
      model[at] = step;
      saw_sparse_and_set |= model.size() < span / 4;
      // Every byte, and bytes just outside the range (kNil there).
      if (step % 500 == 0 || step == 3999) {
        for (uint64_t b = begin - 9; b < begin + span + 9; ++b) {
          const auto it = model.find(b);
          REQUIRE(heads.At(b) == (it == model.end() ? ByteHeads::kNil : it->second));
        }
      }
    }
    REQUIRE(saw_sparse_and_set);
    REQUIRE(model.size() * 4 >= span);  // it turned into an array on the way
  }
}

}  // namespace
}  // namespace pecan
