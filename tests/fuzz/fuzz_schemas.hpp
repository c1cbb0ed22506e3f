#pragma once
/// @file The workloads' parameter schemas, chosen by an input byte (harnesses of --set values
/// and presets).
#include "field/field_params.hpp"
#include "lsq/lsq_params.hpp"
#include "oscillators/oscillators_params.hpp"
#include "params/schema.hpp"

namespace simscope::fuzz {

inline const Schema& workload_schema(std::uint8_t pick) {
  switch (pick % 3) {
    case 0:
      return field::schema();
    case 1:
      return lsq::schema();
    default:
      return oscillators::schema();
  }
}

}  // namespace simscope::fuzz
