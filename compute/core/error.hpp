#pragma once
/// @file Error type thrown across simscope module boundaries.
#include <stdexcept>
#include <string>

namespace simscope {

/// A user-facing error: the message names the file, field or parameter at fault and what was
/// expected, in one line, so that the CLI can print it as is and the GUI can show it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// Thrown by long computations when their Progress was cancelled (a newer request superseded
/// them, or the user pressed cancel). Not an error for the user: the previous result stays.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

}  // namespace simscope
