#pragma once
/// @file Errors of files named by a parameter say which parameter named them.
#include <string>
#include <utility>

#include "core/error.hpp"

namespace simscope::app {

/// Returns read(), a reader of the file that parameter `param` names. A simscope::Error it
/// throws is thrown again as "PARAM: MESSAGE" unless MESSAGE already names `param`, e.g.
/// "sources.file: charges.npy: cannot open (No such file or directory)".
template <class Read>
auto read_file_param(const std::string& param, Read&& read) -> decltype(read()) {
  try {
    return std::forward<Read>(read)();
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.find(param) != std::string::npos) throw;
    throw Error(param + ": " + what);
  }
}

}  // namespace simscope::app
