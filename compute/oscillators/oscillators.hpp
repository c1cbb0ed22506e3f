#pragma once
/// @file The `oscillators` workload: ensembles of K networks of N Stuart-Landau oscillators,
/// integrated with classic fourth-order Runge-Kutta. Parts: model.hpp (constants, state,
/// observables), topology.hpp (networks), ensemble.hpp (integration), study.hpp (headless
/// studies).
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
