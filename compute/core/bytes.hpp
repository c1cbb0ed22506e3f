#pragma once
/// @file The one formatter of memory sizes in messages (out-of-memory errors, the status bar).
#include <string>

namespace simscope {

/// A size in bytes for people, in binary units with three significant digits:
/// "512 bytes", "1.50 KiB", "12.3 MiB", "1.23 GiB", "16.0 TiB" (1 KiB = 1024 bytes; a value that
/// rounds to 1024 of a unit is shown in the next one). Negative or non-finite values give "?
/// bytes".
std::string format_bytes(double bytes);

}  // namespace simscope
