// Fuzzes preset JSON (app::preset_workload and app::load_preset in app/run/presets/presets.cpp,
// apply_json in app/run/params/params_json.cpp, through nlohmann-json): any bytes as a preset file. Beyond "no
// crash": a preset that loads saves (save_preset) and loads again to the same parameters and view
// settings; every refusal is a simscope::Error (fuzz_support.hpp). Input byte 0 chooses the
// workload whose parameters receive the preset when the preset names none that exists (so a
// preset for the wrong workload is refused too).
#include "fuzz_schemas.hpp"
#include "fuzz_support.hpp"
#include "presets/presets.hpp"
#include "view/view_schema.hpp"

using namespace simscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string path = fuzz::write_input(data + 1, size - 1, ".json");
  static const std::string saved = path + ".saved.json";
  fuzz::expect_ok_or_error([&] {
    std::string workload;
    try {
      workload = app::preset_workload(path);
    } catch (const Error&) {
    }
    const Schema* schema = &fuzz::workload_schema(data[0]);
    for (std::uint8_t k = 0; k < 3; ++k)
      if (fuzz::workload_schema(k).workload() == workload) schema = &fuzz::workload_schema(k);
    ParamSet params = schema->defaults(), view = app::view_schema().defaults();
    app::load_preset(path, params, &view);
    try {
      app::save_preset(saved, params, &view);
      ParamSet params2 = schema->defaults(), view2 = app::view_schema().defaults();
      app::load_preset(saved, params2, &view2);
      if (params2 != params || view2 != view)
        fuzz::fail("a saved preset loads to other values", std::string(data + 1, data + size));
    } catch (const Error& e) {
      fuzz::fail("a preset that loaded cannot be saved and loaded again", e.what());
    }
  });
  return 0;
}
