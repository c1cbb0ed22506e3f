#pragma once
/// @file Names for files the window saves on request (screenshots, view images, profiles,
/// sweeps): a local timestamp, and the first name not taken yet.
#include <string>

namespace simscope::app {

/// The local time as YYYYmmdd-HHMMSS, e.g. "20261202-081530".
std::string local_timestamp();

/// `stem` + `ext` when no file or folder has that name, else `stem`-2 + `ext`, -3, ... (the first
/// free one), e.g. ("simscope-view-20261202-081530", ".png").
std::string unused_name(const std::string& stem, const std::string& ext);

}  // namespace simscope::app
