#pragma once
/// @file The oscillators workload's stats table (stat_label.hpp): every run.json stats key a
/// oscillators run or Python's simscope.oscillators gives, once, in the "Last run" panel's order.
/// docs/formats.md's "Stats in the window" lists the same rows; tests/run/test_stat_labels.cpp
/// checks that each key a run gives has a row.
#include <vector>

#include "output/stat_label.hpp"

namespace simscope::app {

/// The rows, for oscillators_descriptor()'s WorkloadDescriptor::stat_labels.
std::vector<StatLabel> oscillators_stat_labels();

}  // namespace simscope::app
