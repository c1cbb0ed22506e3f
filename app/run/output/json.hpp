#pragma once
/// @file JSON in the run layer (run.json, study checkpoints) through nlohmann-json (Debian's
/// nlohmann-json3-dev). Output matches Qt's QJsonDocument: objects with sorted keys, four-space
/// indents, whole doubles below 2^53 as integers ("3", not "3.0").
#include <nlohmann/json.hpp>
#include <string>

namespace simscope::app {

using Json = nlohmann::json;

/// A JSON number for `v`: an integer when v is whole and |v| < 2^53, as QJsonValue writes it,
/// else a double. NaN and infinities become null, as in Qt, since JSON has neither.
Json json_number(double v);

/// The text of `j`, indented by four spaces, or compact on one line without blanks. Ends in a
/// newline when indented. Invalid UTF-8 in strings is replaced by U+FFFD instead of throwing.
std::string json_text(const Json& j, bool compact = false);

/// `o[key]` as a number. Returns `fallback` when `o` is not an object or the key is missing or
/// not a number, as lenient as QJsonValue::toDouble.
double json_double(const Json& o, const char* key, double fallback = 0);
/// `o[key]` as a string, or "" when missing or not a string.
std::string json_string(const Json& o, const char* key);

}  // namespace simscope::app
