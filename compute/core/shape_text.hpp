#pragma once
/// @file An array's shape as numpy prints it, for messages: "(999,)", "(3, 4)", "()".
#include <cstddef>
#include <string>
#include <vector>

namespace simscope {

/// `shape` as numpy prints it: "(999,)" for one axis, "(3, 4)" for two, "()" for none.
std::string shape_text(const std::vector<std::size_t>& shape);

}  // namespace simscope
