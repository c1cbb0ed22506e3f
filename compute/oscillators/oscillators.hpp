#pragma once
/// @file The `oscillators` workload: ensembles of K networks of N Stuart-Landau oscillators,
/// integrated with the classic fourth-order Runge-Kutta method. One header for all of it; the
/// parts: model.hpp (constants, state, observables), topology.hpp (networks), ensemble.hpp
/// (integration on a back end), study.hpp (headless studies) and layout.hpp (drawing).
#include "oscillators/ensemble.hpp"
#include "oscillators/layout.hpp"
#include "oscillators/model.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
