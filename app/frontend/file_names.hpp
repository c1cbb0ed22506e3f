#pragma once
/// @file Names for files the window saves on request: a local timestamp and the first free name.
#include <string>

namespace simscope::app {

/// The local time as YYYYmmdd-HHMMSS, e.g. "20261202-081530".
std::string local_timestamp();

/// `stem` + `ext` when no file or folder has that name, else the first free of `stem`-2 + `ext`,
/// -3, ... E.g. ("simscope-view-20261202-081530", ".png").
std::string unused_name(const std::string& stem, const std::string& ext);

}  // namespace simscope::app
