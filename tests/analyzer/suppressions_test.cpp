// --suppressions: ThreadSanitizer's file format (TYPE:PATTERN lines), the glob with * and ^ $
// anchors, which types pecan knows, and clear errors naming the file and line.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analyzer/suppressions.h"
#include "trace_format/error.h"

using pecan::Suppressions;

TEST_CASE("A suppressions file is TYPE:PATTERN lines, comments and blank lines skipped",
          "[suppressions]") {
  std::vector<std::string> warnings;
  const Suppressions s = Suppressions::Parse(
      "# races we accepted\n"
      "\n"
      "race:parse_header\n"
      "  race_top : ^libfoo.so$  \n"
      "deadlock:Pool::*Lock\n"
      "signal:handler\n"
      "called_from_lib:libzmq.so\n"
      "atomicity:audit\n"
      "lost_update:counter.c\n",
      "supp.txt", &warnings);
  REQUIRE(s.rules().size() == 5);
  CHECK(s.rules()[0].type == "race");
  CHECK(s.rules()[0].pattern == "parse_header");
  CHECK(s.rules()[0].line == 3);
  CHECK(s.rules()[1].type == "race");  // race_top: pecan has no stacks, so the same as race
  CHECK(s.rules()[1].pattern == "^libfoo.so$");
  CHECK(s.rules()[2].type == "deadlock");
  CHECK(s.rules()[3].type == "atomicity");
  CHECK(s.rules()[4].type == "lost_update");  // a user pattern's name
  // ThreadSanitizer's own types are skipped; an unknown type is kept, and said.
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0].rfind("supp.txt:6: 'signal:'", 0) == 0);
  CHECK(warnings[1].rfind("supp.txt:7: 'called_from_lib:'", 0) == 0);
  CHECK(warnings[2].rfind("supp.txt:9: 'lost_update' is no built-in pattern", 0) == 0);
}

TEST_CASE("A bad suppressions line is an error naming the file and line", "[suppressions]") {
  CHECK_THROWS_WITH(Suppressions::Parse("race:a\nrace\n", "s.txt"),
                    Catch::StartsWith("s.txt:2: expected TYPE:PATTERN"));
  CHECK_THROWS_WITH(Suppressions::Parse("race:\n", "s.txt"),
                    Catch::StartsWith("s.txt:1: the pattern after 'race:' is empty"));
  CHECK_THROWS_WITH(Suppressions::Parse("race:^$\n", "s.txt"), Catch::Contains("is empty"));
  CHECK_THROWS_WITH(Suppressions::Parse(":x\n", "s.txt"),
                    Catch::StartsWith("s.txt:1: expected TYPE:PATTERN"));
  CHECK_THROWS_WITH(Suppressions::Parse("data race:x\n", "s.txt"),
                    Catch::StartsWith("s.txt:1: expected TYPE:PATTERN"));
  CHECK_THROWS_WITH(Suppressions::Read("/nonexistent/supp.txt"),
                    Catch::Contains("cannot read the suppressions file"));
}

TEST_CASE("A pattern is a substring with * wildcards and ^ $ anchors", "[suppressions]") {
  CHECK(Suppressions::Matches("header", "parse_header_line"));
  CHECK(Suppressions::Matches("^parse", "parse_header"));
  CHECK_FALSE(Suppressions::Matches("^header", "parse_header"));
  CHECK(Suppressions::Matches("header$", "parse_header"));
  CHECK_FALSE(Suppressions::Matches("parse$", "parse_header"));
  CHECK(Suppressions::Matches("^parse_header$", "parse_header"));
  CHECK_FALSE(Suppressions::Matches("^parse_header$", "parse_header2"));
  CHECK(Suppressions::Matches("Pool::*Lock", "Pool::TakeLock"));
  CHECK(Suppressions::Matches("^/src/*/net/*.c$", "/src/app/net/socket.c"));
  CHECK_FALSE(Suppressions::Matches("^/src/*/net/*.c$", "/src/app/net/socket.cpp"));
  CHECK(Suppressions::Matches("a*b*c", "xxaYYbZZcxx"));
  CHECK_FALSE(Suppressions::Matches("a*b*c", "xxcYYbZZa"));
  CHECK(Suppressions::Matches("*", "anything"));
  CHECK_FALSE(Suppressions::Matches("x", ""));  // an unknown function matches nothing
}

TEST_CASE("A rule hides findings of its type whose function, file or module it matches",
          "[suppressions]") {
  const Suppressions s = Suppressions::Parse(
      "race:^add_batch$\natomicity:/src/audit.c\ndeadlock:libpool.so\n", "s.txt");
  CHECK(s.Match("race", "add_batch", "/src/lost.c", "/bin/app") == &s.rules()[0]);
  CHECK(s.Match("race", "add_batch_fast", "/src/lost.c", "/bin/app") == nullptr);
  CHECK(s.Match("atomicity", "add_batch", "/src/lost.c", "/bin/app") == nullptr);  // type
  CHECK(s.Match("atomicity", "audit", "/src/audit.c", "/bin/app") == &s.rules()[1]);
  CHECK(s.Match("deadlock", "", "", "/usr/lib/libpool.so") == &s.rules()[2]);
  CHECK(s.Match("race", "", "", "") == nullptr);
}
