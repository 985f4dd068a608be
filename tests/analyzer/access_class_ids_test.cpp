// AccessClassIds: a location's classes numbered from 0 in the order of their first access, the
// same number for every later access of a class, whether the location keeps its classes in a
// short list or (past AccessClassIds's list size) in a hash table; and AccessClassLookup, which
// numbers an access's class only once a search asks.
#include "analyzer/access_class_ids.h"

#include <catch2/catch.hpp>
#include <iterator>
#include <map>
#include <tuple>

#include "scrambler.h"

namespace pecan {
namespace {

Event Access(ThreadId thread, SiteId site, uint64_t addr, uint32_t size = 4,
             EventKind kind = EventKind::kWrite) {
  Event e;
  e.thread = thread;
  e.kind = kind;
  e.site = site;
  e.addr = addr;
  e.size = size;
  return e;
}

LocationInfo Location(bool single_range) {
  LocationInfo info;
  info.begin = 0x1000;
  info.end = 0x1000 + 64;
  info.single_range = single_range;
  return info;
}

TEST_CASE("AccessClassIds numbers a location's classes in order of first access",
          "[analysis][classes]") {
  AccessClassIds ids(2);
  const LocationInfo info = Location(true);
  AccessClassRef a = ids.Of(0, Access(1, 10, 0x1000), 0, info);
  CHECK(a.id == 0);
  CHECK(a.created);
  AccessClassRef b = ids.Of(0, Access(2, 10, 0x1000), 0, info);
  CHECK(b.id == 1);
  CHECK(b.created);
  // Same thread, site, kind and lock set: the same class, made once.
  AccessClassRef again = ids.Of(0, Access(1, 10, 0x1000), 0, info);
  CHECK(again.id == 0);
  CHECK_FALSE(again.created);
  // Each key field makes a class of its own.
  CHECK(ids.Of(0, Access(1, 10, 0x1000, 4, EventKind::kRead), 0, info).id == 2);
  CHECK(ids.Of(0, Access(1, 10, 0x1000), 7, info).id == 3);
  CHECK(ids.Of(0, Access(1, 11, 0x1000), 0, info).id == 4);
  // Another location numbers its own classes from 0.
  CHECK(ids.Of(1, Access(1, 10, 0x1000), 0, info).id == 0);
}

TEST_CASE("AccessClassIds tells a multi-range location's bytes apart, not a single-range one's",
          "[analysis][classes]") {
  AccessClassIds ids(2);
  const LocationInfo several = Location(false);
  CHECK(ids.Of(0, Access(1, 10, 0x1000, 4), 0, several).id == 0);
  CHECK(ids.Of(0, Access(1, 10, 0x1004, 4), 0, several).id == 1);
  CHECK(ids.Of(0, Access(1, 10, 0x1000, 8), 0, several).id == 2);
  CHECK(ids.Of(0, Access(1, 10, 0x1004, 4), 0, several).id == 1);
  const LocationInfo single = Location(true);
  CHECK(ids.Of(1, Access(1, 10, 0x1000, 4), 0, single).id == 0);
  const AccessClassRef same = ids.Of(1, Access(1, 10, 0x1004, 4), 0, single);
  CHECK(same.id == 0);
  CHECK_FALSE(same.created);
  CHECK(same.key.begin == single.begin);
  CHECK(same.key.end == single.end);
}

TEST_CASE("AccessClassIds keeps every id through the change from list to table",
          "[analysis][classes]") {
  // Many classes on one location, met again in a scrambled order after each new one: ids agree
  // with a std::map that numbers keys in order of first sight.
  for (const bool single_range : {true, false}) {
    AccessClassIds ids(1);
    const LocationInfo info = Location(single_range);
    std::map<std::tuple<ThreadId, SiteId, uint64_t>, uint32_t> expected;
    Scrambler next(12345);
    for (int step = 0; step < 5000; ++step) {
      const ThreadId thread = next() % 5;
      const SiteId site = next() % 60;
      const uint64_t addr = 0x1000 + 4 * (next() % 4);
      const auto key = std::make_tuple(thread, site, single_range ? uint64_t{0} : addr);
      const auto [it, fresh] = expected.emplace(key, static_cast<uint32_t>(expected.size()));
      const AccessClassRef c = ids.Of(0, Access(thread, site, addr), 0, info);
      REQUIRE(c.id == it->second);
      REQUIRE(c.created == fresh);
    }
    CHECK(expected.size() > 2 * AccessClassIds::kListSize);
  }
}

TEST_CASE("AccessClassIds numbers the class of a last access to its bytes without keeping it",
          "[analysis][classes]") {
  // Keys met again and again, between accesses that are the last to their bytes: those of a new
  // class take the next number and are not kept; those of a known class find it. The ids agree
  // with a std::map that numbers every key in order of first sight, in list and table alike.
  for (const bool single_range : {true, false}) {
    AccessClassIds ids(1);
    const LocationInfo info = Location(single_range);
    std::map<std::tuple<ThreadId, SiteId, uint64_t>, uint32_t> expected;
    Scrambler next(777);
    uint32_t unkept = 0, last_known = 0;
    for (int step = 0; step < 5000; ++step) {
      const bool last = next() % 3 == 0;
      // A last access: a site never seen again (new), or a known key's (its class is found).
      const bool known = last && next() % 4 == 0 && !expected.empty();
      ThreadId thread = next() % 5;
      SiteId site = last && !known ? static_cast<SiteId>(1000 + step) : next() % 40;
      uint64_t addr = 0x1000 + 4 * (next() % 4);
      if (known) {
        // Any kept key (sites below 1000): a later step may still meet it.
        auto it = expected.begin();
        std::advance(it, next() % expected.size());
        if (std::get<1>(it->first) >= 1000) continue;
        std::tie(thread, site, addr) = it->first;
        ++last_known;
      }
      const auto key = std::make_tuple(thread, site, single_range ? uint64_t{0} : addr);
      const auto [it, fresh] = expected.emplace(key, static_cast<uint32_t>(expected.size()));
      const Event e = Access(thread, site, addr);
      const AccessClassRef c = ids.Of(0, AccessClassKey::Of(e, 0, info), info, last);
      REQUIRE(c.id == it->second);
      REQUIRE(c.created == fresh);
      unkept += last && fresh;
    }
    CHECK(unkept > 1000);
    CHECK(last_known > 100);
    CHECK(expected.size() - unkept > 2 * AccessClassIds::kListSize);
  }
  // A lookup passes the mark on.
  AccessClassIds ids(1);
  const LocationInfo info = Location(false);
  AccessClassLookup last(&ids, 0, Access(1, 10, 0x1000), 0, info, /*last_of_bytes=*/true);
  CHECK(last.Get().id == 0);
  AccessClassLookup other(&ids, 0, Access(1, 11, 0x1000), 0, info);
  CHECK(other.Get().id == 1);
  AccessClassLookup same(&ids, 0, Access(1, 10, 0x1000), 0, info);  // not kept: a new number
  CHECK(same.Get().id == 2);
  CHECK(same.Get().created);
}

TEST_CASE("AccessClassLookup numbers its access's class only when asked, and once",
          "[analysis][classes]") {
  AccessClassIds ids(1);
  const LocationInfo info = Location(true);
  const Event first = Access(1, 10, 0x1000);
  const Event second = Access(2, 10, 0x1000);
  AccessClassLookup unasked(&ids, 0, first, 0, info);
  CHECK(unasked.key().thread == 1);
  CHECK(unasked.key().begin == info.begin);  // the key is there without a number
  AccessClassLookup asked(&ids, 0, second, 0, info);
  const AccessClassRef& b = asked.Get();
  CHECK(b.id == 0);  // the first class numbered: the unasked access made none
  CHECK(b.created);
  CHECK(&asked.Get() == &b);
  CHECK(asked.Get().created);  // asked again: the same answer, not a second lookup
  AccessClassLookup later(&ids, 0, first, 0, info);
  CHECK(later.Get().id == 1);
  CHECK(later.Get().created);
  AccessClassLookup again(&ids, 0, second, 0, info);
  CHECK(again.Get().id == 0);
  CHECK_FALSE(again.Get().created);
}

}  // namespace
}  // namespace pecan
