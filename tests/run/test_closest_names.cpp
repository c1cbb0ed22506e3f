// closest_names / did_you_mean (app/run/params/closest_names.hpp): the suggestions of refusals.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "params/closest_names.hpp"
#include "params/unknown_parameter.hpp"
#include "workload.hpp"

namespace simscope {
namespace {

std::vector<KnownName> plain(std::initializer_list<const char*> names) {
  std::vector<KnownName> out;
  for (const char* n : names) out.push_back({n, {}});
  return out;
}

TEST(ClosestNames, OneTypoSwapOrMissingLetterIsNear) {
  const auto known = plain({"grid.size", "grid.half_width", "plane", "plane.offset", "k", "eps"});
  EXPECT_EQ(closest_names("grid.sise", known), std::vector<std::string>{"grid.size"});
  EXPECT_EQ(closest_names("grid.szie", known), std::vector<std::string>{"grid.size"});
  EXPECT_EQ(closest_names("grid.siz", known), std::vector<std::string>{"grid.size"});
  EXPECT_EQ(closest_names("plane.ofset", known), std::vector<std::string>{"plane.offset"});
}

TEST(ClosestNames, CaseUnderscoresAndTheLastDottedPartDoNotCount) {
  const auto known =
      plain({"grid.size", "integrator.steps", "live.steps_per_frame", "model.omega"});
  EXPECT_EQ(closest_names("GRID_SIZE", known), std::vector<std::string>{"grid.size"});
  EXPECT_EQ(closest_names("omega", known), std::vector<std::string>{"model.omega"});
  EXPECT_EQ(closest_names("steps", known).front(), "integrator.steps");
  EXPECT_EQ(closest_names("live-steps-per-frame", known),
            std::vector<std::string>{"live.steps_per_frame"});
}

TEST(ClosestNames, FarNamesAreNotSuggested) {
  const auto known = plain({"grid.size", "plane", "k", "eps", "network.p"});
  EXPECT_TRUE(closest_names("x", known).empty()) << "one letter: by an exact word only";
  EXPECT_EQ(closest_names("P", known), std::vector<std::string>{"network.p"});
  EXPECT_TRUE(closest_names("colormap", known).empty());
  EXPECT_TRUE(closest_names("", known).empty());
  EXPECT_TRUE(closest_names("xyz", known).empty());
  EXPECT_EQ(did_you_mean("colormap", known), "");
}

TEST(ClosestNames, NearByLengthUpToAThirdOfTheShorter) {
  // grid.size has 9 letters: up to 3 edits are near, so 3 letters more are, 4 are not.
  const auto known = plain({"grid.size"});
  EXPECT_EQ(closest_names("grid.sizeeee", known), std::vector<std::string>{"grid.size"});
  EXPECT_TRUE(closest_names("grid.sizeeeee", known).empty());
  EXPECT_TRUE(closest_names("grid", known).empty()) << "5 edits from grid.size, 4 from size";
  // A preset key of 60,000 letters (the fuzz corpus has one) is near nothing.
  EXPECT_TRUE(closest_names(std::string(60000, 'k'), plain({"k", "kk.kkk", "network.k"})).empty());
  EXPECT_TRUE(closest_names("grid.size" + std::string(60000, 'e'), known).empty());
}

TEST(ClosestNames, OtherWordsSuggestTheirParameterFirst) {
  const std::vector<KnownName> known = {{"model.omega", {"w"}}, {"model.c", {}},
                                        {"model.coupling", {"e", "epsilon"}}};
  EXPECT_EQ(closest_names("w", known), std::vector<std::string>{"model.omega"});
  EXPECT_EQ(closest_names("Epsilon", known), std::vector<std::string>{"model.coupling"});
  EXPECT_EQ(did_you_mean("e", known), "did you mean 'model.coupling'?");
}

TEST(ClosestNames, AWordAsTypedCaseIncludedComesFirst) {
  // Issue 42: docs/python.md's "K networks" is ensemble.size, though K folds to network.k's last
  // part.
  const std::vector<KnownName> known = {{"network.k", {"k"}}, {"ensemble.size", {"K"}}};
  EXPECT_EQ(closest_names("K", known), std::vector<std::string>{"ensemble.size"});
  EXPECT_EQ(closest_names("k", known), std::vector<std::string>{"network.k"});
  EXPECT_EQ(closest_names("KK", known), std::vector<std::string>{});
  const auto plain_k = plain({"network.k", "ensemble.size"});
  EXPECT_EQ(closest_names("K", plain_k), std::vector<std::string>{"network.k"}) << "case aside";
}

TEST(ClosestNames, SeveralAreListedNearestFirstAtMostThree) {
  const auto known = plain({"abcd", "abce", "abcf", "abc", "abcg", "abxy"});
  EXPECT_EQ(closest_names("abcx", known), (std::vector<std::string>{"abcd", "abce", "abcf"}));
  EXPECT_EQ(closest_names("abcx", known, 5),
            (std::vector<std::string>{"abcd", "abce", "abcf", "abc", "abcg"}))
      << "abxy is two edits away: only the nearest are listed";
  EXPECT_EQ(closest_names("abd", known), (std::vector<std::string>{"abcd", "abc"}));
  EXPECT_EQ(did_you_mean("abcx", plain({"abcd", "abce"})), "did you mean 'abcd' or 'abce'?");
  EXPECT_EQ(did_you_mean("abcx", plain({"abcd", "abce", "abcf"})),
            "did you mean 'abcd', 'abce' or 'abcf'?");
}

TEST(ClosestNames, TheSuggestionNamesTheKnownNameNotTheTypedText) {
  EXPECT_EQ(did_you_mean("gird.size\n", plain({"grid.size"})), "did you mean 'grid.size'?");
}

TEST(ClosestNames, RefusalsOfTheWorkloadsSuggestTheFieldsWords) {
  std::string e;
  try {
    app::make_workload("field")->schema().at("factor");
  } catch (const Error& x) {
    e = x.what();
  }
  EXPECT_NE(e.find("unknown parameter 'factor' for workload 'field' (did you mean 'k'?) (known: "),
            std::string::npos)
      << e;
  const auto oscillators = app::make_workload("oscillators");
  const Schema& osc = oscillators->schema();
  const std::string m = app::unknown_parameter_message(osc, "w");
  EXPECT_NE(m.find("(did you mean 'model.omega'?)"), std::string::npos) << m;
  EXPECT_NE(app::unknown_parameter_message(osc, "view.colormp").find("'view.colormap'"),
            std::string::npos);
  // With a suggestion, the message is short: the suggestion and where the names are listed.
  EXPECT_EQ(app::unknown_parameter_message(osc, "K"),
            "unknown parameter 'K' for workload 'oscillators' (did you mean 'ensemble.size'?); "
            "--list-params oscillators lists them all");
  EXPECT_EQ(app::unknown_parameter_message(osc, "topologies"),
            "unknown parameter 'topologies' for workload 'oscillators' (did you mean "
            "'ensemble.size'?); --list-params oscillators lists them all");
  EXPECT_NE(app::unknown_parameter_message(osc, "zzzz").find("(known: network.nodes, "),
            std::string::npos)
      << "near none: all names";
  const auto field = app::make_workload("field");
  EXPECT_NE(app::unknown_parameter_message(field->schema(), "points")
                .find("(did you mean 'sources.count' or 'grid.size'?)"),
            std::string::npos);
  try {
    app::make_workload("oscilators");
  } catch (const Error& x) {
    e = x.what();
  }
  EXPECT_NE(e.find("(did you mean 'oscillators'?)"), std::string::npos) << e;
}

}  // namespace
}  // namespace simscope
