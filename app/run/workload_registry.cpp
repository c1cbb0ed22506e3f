// The registry of workloads the app offers, in switcher order: one line per workload (its folder
// defines the descriptor).
#include "core/error.hpp"
#include "core/quote.hpp"
#include "params/closest_names.hpp"
#include "workload.hpp"

namespace simscope::app {

WorkloadDescriptor field_descriptor();        // field/field_workload.cpp
WorkloadDescriptor lsq_descriptor();          // lsq/lsq_workload.cpp
WorkloadDescriptor oscillators_descriptor();  // oscillators/oscillators_workload.cpp

const std::vector<WorkloadDescriptor>& workloads() {
  static const std::vector<WorkloadDescriptor> all = {field_descriptor(), lsq_descriptor(),
                                                      oscillators_descriptor()};
  return all;
}

OutputArray WorkloadDescriptor::make_output(const std::string& output) const {
  for (const OutputSpec& s : outputs)
    if (s.name == output) {
      OutputArray o;
      o.name = s.name, o.label = s.label, o.unit = s.unit, o.dtype = s.dtype;
      return o;
    }
  throw Error(name + ": no output called '" + output + "' is declared");
}

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& d : workloads()) n.push_back(d.name);
    return n;
  }();
  return names;
}

const WorkloadDescriptor* find_workload_descriptor(const std::string& name) {
  for (const auto& d : workloads())
    if (d.name == name) return &d;
  return nullptr;
}

const WorkloadDescriptor& workload_descriptor(const std::string& name) {
  if (const WorkloadDescriptor* d = find_workload_descriptor(name)) return *d;
  std::string known;
  std::vector<KnownName> names;
  for (const auto& n : workload_names()) {
    known += (known.empty() ? "" : ", ") + n;
    names.push_back({n, {}});
  }
  const std::string hint = did_you_mean(name, names);
  throw Error("unknown workload '" + quote_text(name) + "'" +
              (hint.empty() ? "" : " (" + hint + ")") + " (known: " + known + ")");
}

std::unique_ptr<Workload> make_workload(const std::string& name) {
  return workload_descriptor(name).make();
}

}  // namespace simscope::app
