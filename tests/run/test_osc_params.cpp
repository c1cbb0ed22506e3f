// The oscillators workload's parameter schema and its readers: defaults, study options,
// networks and initial states from a ParamSet, and errors naming the parameter.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.hpp"
#include "oscillators/oscillators_params.hpp"

namespace simscope::oscillators {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(OscParams, DefaultsAndReaders) {
  const Schema& s = schema();
  EXPECT_EQ(s.workload(), "oscillators");
  ParamSet p = s.defaults();
  EXPECT_EQ(p.get_string("precision"), "fp64");
  EXPECT_EQ(p.get_string("view"), "oscillators");
  const StudyOptions o = study_options_from(p);
  EXPECT_NO_THROW(validate(o));
  const Topologies t = make_topologies(p);
  EXPECT_EQ(t.nodes, 100);
  EXPECT_EQ(t.members, 16);
  EXPECT_EQ(make_topologies(p, 4).members, 4);
  EXPECT_EQ(make_topologies(p, 4).edges(3), t.edges(3));  // the live view's members
  // Bad values name the parameter.
  for (const char* kv : {"integrator.dt=-0.01", "integrator.dt=nan", "network.nodes=0",
                         "ensemble.size=0", "record.every=0", "network.p=2"}) {
    const std::string text(kv);
    const auto eq = text.find('=');
    const std::string msg =
        error_of([&] { p.set_from_string(text.substr(0, eq), text.substr(eq + 1)); });
    EXPECT_NE(msg.find(text.substr(0, eq)), std::string::npos) << kv << ": " << msg;
  }
  p.set_from_string("network.topology", "ring");
  p.set_from_string("network.k", "3");
  EXPECT_NE(error_of([&] { make_topologies(p); }).find("network.k"), std::string::npos);
  p.set_from_string("network.topology", "file");
  EXPECT_NE(error_of([&] { make_topologies(p); }).find("network.file"), std::string::npos);
  p.set_from_string("init", "file");
  EXPECT_NE(error_of([&] { make_initial_state(p); }).find("init.file"), std::string::npos);
}

TEST(OscParams, CouplingFormLiteralWarnsWhereDegreesDifferFromD) {
  ParamSet p = schema().defaults();
  EXPECT_EQ(model_from(p).form, CouplingForm::Laplacian);
  p.set_from_string("model.coupling_form", "literal");
  p.set_from_string("model.coupling_degree", "4");
  const Model m = model_from(p);
  EXPECT_EQ(m.form, CouplingForm::Literal);
  EXPECT_EQ(m.degree, 4.0);
  EXPECT_EQ(m.self_weight(7.0), 4.0);
  EXPECT_EQ(Model{}.self_weight(7.0), 7.0);
  // A ring of degree 4: the forms agree, no warning. Degree 2: every node differs.
  EXPECT_EQ(literal_coupling_warning(ring(10, 4, 3), m), "");
  const std::string w = literal_coupling_warning(ring(10, 2, 3), m);
  EXPECT_NE(w.find("model.coupling_form=literal subtracts d x_i = 4 x_i at every node, but the "
                   "network's node degrees are all 2 (10 of 10 nodes differ from d)"),
            std::string::npos)
      << w;
  EXPECT_EQ(literal_coupling_warning(ring(10, 2, 3), Model{}), "") << "Laplacian: no warning";
  // Work ranges: the spreads of the parts add up to the whole ensemble's warning; a shared
  // network repeated by every part counts once.
  const Topologies all = watts_strogatz(12, 4, 0.3, 9, 5);
  DegreeSpread parts;
  for (int first : {0, 4, 7})
    parts.add(degree_spread(watts_strogatz(12, 4, 0.3, first == 7 ? 2 : first == 4 ? 3 : 4, 5,
                                           first),
                            4.0));
  Model m4 = m;
  EXPECT_EQ(literal_coupling_warning(parts, m4), literal_coupling_warning(all, m4));
  EXPECT_NE(literal_coupling_warning(all, m4).find("over the 9 networks"), std::string::npos);
  DegreeSpread shared;
  for (int r = 0; r < 3; ++r) shared.add(degree_spread(ring(10, 2, 4), 4.0));
  EXPECT_EQ(literal_coupling_warning(shared, m), w);
}

}  // namespace
}  // namespace simscope::oscillators
