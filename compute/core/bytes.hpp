#pragma once
/// @file Formats memory sizes for messages.
#include <string>

namespace simscope {

/// Formats a size in bytes in binary units with three significant digits.
/// Examples: "512 bytes", "1.50 KiB", "12.3 MiB", "1.23 GiB", "16.0 TiB"; 1 KiB = 1024 bytes.
/// A value that rounds to 1024 of a unit is shown in the next unit.
/// Negative or non-finite values give "? bytes".
std::string format_bytes(double bytes);

}  // namespace simscope
