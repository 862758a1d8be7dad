//===- StopStringsTest.cpp - Unit tests for --stop ------------------------===//
#include "runtime/StopStrings.h"

#include <gtest/gtest.h>

using tfm::rt::StopStringFilter;

namespace {

/// Feeds `pieces` one by one; returns everything printed and whether it
/// stopped.
std::pair<std::string, bool> stream(StopStringFilter &filter,
                                    const std::vector<std::string> &pieces) {
  std::string printed;
  for (const std::string &piece : pieces) {
    printed += filter.push(piece);
    if (filter.stopped())
      return {printed, true};
  }
  return {printed + filter.flush(), false};
}

} // namespace

TEST(StopStringsTest, NoStopsPassesEverythingThrough) {
  StopStringFilter filter({});
  EXPECT_EQ(filter.push("abc"), "abc");
  EXPECT_EQ(filter.flush(), "");
}

TEST(StopStringsTest, StopsBeforeTheStopString) {
  StopStringFilter filter({"\n\n"});
  EXPECT_EQ(stream(filter, {"Hello", " world", ".\n", "\nNext"}),
            std::make_pair(std::string("Hello world."), true));
}

TEST(StopStringsTest, HoldsBackAPossibleStartUntilItIsNotOne) {
  StopStringFilter filter({"User:"});
  EXPECT_EQ(filter.push("Yes. Us"), "Yes. ");
  EXPECT_EQ(filter.push("e it"), "Use it");
  EXPECT_FALSE(filter.stopped());
}

TEST(StopStringsTest, AStopSpreadOverManyPieces) {
  StopStringFilter filter({"</s>"});
  EXPECT_EQ(stream(filter, {"ok", "<", "/", "s", ">", "more"}),
            std::make_pair(std::string("ok"), true));
}

TEST(StopStringsTest, TheEarliestOfSeveralStopsWins) {
  StopStringFilter filter({"world", "lo w"});
  EXPECT_EQ(stream(filter, {"hello world"}),
            std::make_pair(std::string("hel"), true));
}

TEST(StopStringsTest, HeldTextIsFlushedWhenGenerationEnds) {
  StopStringFilter filter({"END"});
  auto [printed, stopped] = stream(filter, {"the E", "N"});
  EXPECT_FALSE(stopped);
  EXPECT_EQ(printed, "the EN");
}

TEST(StopStringsTest, PiecesAfterAStopAreDropped) {
  StopStringFilter filter({"x"});
  EXPECT_EQ(filter.push("axb"), "a");
  EXPECT_TRUE(filter.stopped());
  EXPECT_EQ(filter.push("more"), "");
  EXPECT_EQ(filter.flush(), "");
}

TEST(StopStringsTest, EmptyStopStringsAreIgnored) {
  StopStringFilter filter({""});
  EXPECT_EQ(filter.push("text"), "text");
  EXPECT_FALSE(filter.stopped());
}
