#pragma once
/// @file Error type thrown across simscope module boundaries. Each class has a key function (its
/// destructor, error.cpp), so its type_info is defined once: the CPU kernels' levels are built
/// with -fno-weak (core/isa.hpp), where an inline-only class would get one type_info per
/// translation unit and a `catch (const Error&)` would miss an Error thrown by a kernel.
#include <stdexcept>
#include <string>

namespace simscope {

/// A user-facing error. The one-line message names the file, field or parameter at fault and
/// what was expected. The CLI prints it as is; the GUI shows it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  ~Error() override;
};

/// Thrown by long computations when their Progress was cancelled by a newer request or the user.
/// Not an error for the user: the previous result stays.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
  ~Cancelled() override;
};

}  // namespace simscope
