#pragma once
/// @file JSON in the run layer (run.json, study checkpoints) through nlohmann-json (Debian's
/// nlohmann-json3-dev), written the way Qt's QJsonDocument wrote it before: objects with sorted
/// keys, four-space indents, whole doubles below 2^53 as integers ("3", not "3.0").
#include <nlohmann/json.hpp>
#include <string>

namespace simscope::app {

using Json = nlohmann::json;

/// A JSON number for `v`: an integer when v is whole and |v| < 2^53 (as QJsonValue writes it),
/// else a double. NaN and infinities become null (JSON has neither), as in Qt.
Json json_number(double v);

/// The text of `j`, indented by four spaces (compact: on one line, no blanks), ending in a
/// newline when indented. Invalid UTF-8 in strings is replaced by U+FFFD instead of throwing.
std::string json_text(const Json& j, bool compact = false);

/// `o[key]` as a number, or `fallback` when `o` is not an object or the key is missing or not a
/// number (QJsonValue::toDouble's leniency).
double json_double(const Json& o, const char* key, double fallback = 0);
/// `o[key]` as a string, or "" when missing or not a string.
std::string json_string(const Json& o, const char* key);

}  // namespace simscope::app
