#pragma once
/// @file Node positions for drawing the networks of the `oscillators` workload (the phase view).
#include <vector>

#include "oscillators/topology.hpp"

namespace simscope::app {

/// Node positions on the unit circle, node 0 at the top, counter-clockwise, as (x0, y0, x1, ...).
std::vector<float> circle_layout(int nodes);
/// A force-directed layout of member k's graph, started from the circle, deterministic, scaled
/// into [-1, 1]^2. Fruchterman & Reingold 1991, "Graph drawing by force-directed placement",
/// Software: Practice and Experience 21.
std::vector<float> spring_layout(const oscillators::Topologies& t, int member, int iterations = 200);

}  // namespace simscope::app
