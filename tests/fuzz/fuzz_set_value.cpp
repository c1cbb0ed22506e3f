// Fuzzes `--set NAME=VALUE` (app::set_parameter in app/run/params/set_parameter.cpp,
// Schema::parse_value in app/run/params/schema.cpp). Input: byte 0 chooses the workload (field,
// lsq, oscillators); byte 1 below 240 chooses one of its parameters or view settings and the rest
// is the VALUE, from 240 on the rest is the whole NAME=VALUE text. Beyond "no crash": an accepted
// value passes Schema::check_value and reads back as itself from format_value() (its documented
// promise); every refusal is a simscope::Error (fuzz_support.hpp).
#include <string>

#include "fuzz_schemas.hpp"
#include "fuzz_support.hpp"
#include "params/set_parameter.hpp"
#include "view/view_schema.hpp"

using namespace simscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const Schema& ws = fuzz::workload_schema(data[0]);
  const Schema& vs = app::view_schema();
  const std::string rest(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::string kv;
  if (data[1] < 240) {
    const std::size_t n = ws.specs().size() + vs.specs().size(), k = data[1] % n;
    kv = (k < ws.specs().size() ? ws.specs()[k] : vs.specs()[k - ws.specs().size()]).name + "=" +
         rest;
  } else {
    kv = rest;
  }
  fuzz::expect_ok_or_error([&] {
    ParamSet params = ws.defaults(), view = vs.defaults();
    app::set_parameter(params, view, kv);
    const std::string name = kv.substr(0, kv.find('='));
    const ParamSet& set = ws.find(name) ? params : view;
    const ParamSpec& spec = set.schema().at(name);
    const ParamValue& v = set.get(name);
    try {
      if (Schema::check_value(spec, v) != v) fuzz::fail("check_value changed a stored value", kv);
      if (Schema::parse_value(spec, format_value(v)) != v)
        fuzz::fail("format_value() does not read back as the value", kv + " -> " + format_value(v));
    } catch (const Error& e) {
      fuzz::fail("a stored value is refused when checked or read back", kv + ": " + e.what());
    }
  });
  return 0;
}
