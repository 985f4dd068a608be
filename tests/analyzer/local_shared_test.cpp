// LocalShared: shared ownership with a plain count. The object lives while a copy holds it, goes
// with the last one, and is the same object through the const conversion and ConstCast.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "analyzer/local_shared.h"

using namespace pecan;

namespace {

// Counts its live instances.
struct Tracked {
  explicit Tracked(int* live, int value) : live(live), value(value) { ++*live; }
  Tracked(const Tracked&) = delete;
  ~Tracked() { --*live; }
  int* live;
  int value;
};

}  // namespace

TEST_CASE("LocalShared destroys its object with the last copy", "[local_shared]") {
  int live = 0;
  {
    LocalShared<Tracked> a = LocalShared<Tracked>::Make(&live, 7);
    REQUIRE(live == 1);
    REQUIRE(a.use_count() == 1);
    REQUIRE(a->value == 7);
    {
      LocalShared<Tracked> b = a;  // NOLINT: the copy is the point
      REQUIRE(a.use_count() == 2);
      REQUIRE(b.get() == a.get());
      LocalShared<Tracked> c = std::move(b);
      REQUIRE(!b);  // NOLINT: a moved-from LocalShared is empty
      REQUIRE(a.use_count() == 2);
      c = LocalShared<Tracked>();
      REQUIRE(a.use_count() == 1);
      REQUIRE(live == 1);
    }
    const LocalShared<Tracked>& same = a;
    a = same;  // self-assignment keeps the object
    REQUIRE(a.use_count() == 1);
    REQUIRE(live == 1);
  }
  REQUIRE(live == 0);
}

TEST_CASE("LocalShared converts to const and back to the same object", "[local_shared]") {
  int live = 0;
  LocalShared<const Tracked> view;
  {
    LocalShared<Tracked> owner = LocalShared<Tracked>::Make(&live, 1);
    view = owner;
    REQUIRE(view.use_count() == 2);
    owner->value = 2;
    REQUIRE(view->value == 2);
  }
  REQUIRE(live == 1);
  REQUIRE(view.use_count() == 1);
  LocalShared<Tracked> back = std::move(view).ConstCast();
  REQUIRE(!view);  // NOLINT: ConstCast empties its source
  REQUIRE(back.use_count() == 1);
  back->value = 3;
  REQUIRE((*back).value == 3);
  back = LocalShared<Tracked>();
  REQUIRE(live == 0);
}

TEST_CASE("LocalShared copies kept in containers share one object", "[local_shared]") {
  using Clock = LocalShared<const std::vector<unsigned>>;
  const Clock clock = Clock::Make(4u, 9u);
  std::vector<Clock> kept(100, clock);
  REQUIRE(clock.use_count() == 101);
  kept.resize(10);
  REQUIRE(clock.use_count() == 11);
  REQUIRE((*kept[5])[3] == 9u);
  kept.clear();
  REQUIRE(clock.use_count() == 1);
}
