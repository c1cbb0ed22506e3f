#pragma once
/// @file Presets shipped with simscope (resources/presets/NAME.json), found by name: in the
/// source tree, beside an installed executable, or in $SIMSCOPE_PRESETS_DIR.
#include <string>
#include <vector>

namespace simscope::app {

/// The folders searched for a preset given by name, in order: $SIMSCOPE_PRESETS_DIR when set,
/// the installed one (../share/simscope/presets from the executable's folder) and the source
/// tree's resources/presets. Folders that do not exist are left out.
std::vector<std::string> preset_folders();

/// The names (file names without .json) of the presets in preset_folders(), sorted, each once.
std::vector<std::string> shipped_presets();

/// `name_or_path` itself when it names an existing file, or when it has a '/' or ends in
/// ".json" (load_preset then says what is wrong with it); otherwise the shipped preset of that
/// name, from the first folder that has it. Throws simscope::Error "preset 'x': no such file
/// and no shipped preset of that name (did you mean 'seed-lsq'?) (shipped: ...)".
std::string find_preset(const std::string& name_or_path);

}  // namespace simscope::app
