#pragma once
/// @file ParamSet <-> JSON (presets, run.json, image metadata), through Qt's QJsonObject.
#include <QJsonObject>
#include <QString>

#include "core/params.hpp"

namespace simscope::app {

/// {"grid.size": 128, "plane": "xy", ...}: ints as integers, floats as doubles.
QJsonObject to_json(const ParamSet& params);

/// Applies every key of `json` to `params` (keys not present keep their value). Throws
/// simscope::Error naming `origin` (e.g. the preset file) and the parameter at fault:
/// unknown names, wrong types, out-of-range values.
void apply_json(ParamSet& params, const QJsonObject& json, const std::string& origin);

/// The parameters as "name=value" lines, for PNG text metadata.
QString to_text(const ParamSet& params);

}  // namespace simscope::app
