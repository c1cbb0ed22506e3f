#!/usr/bin/env python3
"""Tests of check_workload_names.py on fixture trees: each deliberate way of naming a workload
outside its folders fails the check with a line naming the file, the line and the workload; the
same tree without it passes; allowances let a line through and fail once unused."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_workload_names as check  # noqa: E402

BASE = {
    "app/run/field/field_workload.cpp":
        'WorkloadDescriptor field_descriptor() { d.name = "field"; return d; }\n',
    "app/run/lsq/lsq_workload.cpp": 'WorkloadDescriptor lsq_descriptor() { return {"lsq"}; }\n',
    "app/run/oscillators/oscillators_workload.cpp":
        'namespace osc = simscope::oscillators;\nint f() { return osc::steps("osc-steps"); }\n',
    "compute/field/field.hpp": "namespace simscope::field { int outputs(); }\n",
    "compute/field/sources.cmake": "list(APPEND SIMSCOPE_ISA_KERNELS ${_here}/field_cpu.cpp)\n",
    "app/gui/field_gui.cpp": "std::unique_ptr<WorkloadGui> make_field_gui();\n",
    "app/python/py_field.cpp": 'void bind_field(py::module_& m) { m.def("field", f); }\n',
    "app/run/output/stat_labels.cpp": ("// The stats of field, lsq and oscillators runs.\n"
                                "/* a \"field\" in a block comment */\n"
                                "const auto& rows(const std::string& w) {\n"
                                "  return find_workload_descriptor(w)->stat_labels;\n}\n"),
    "app/cli/headless.cpp": ('#include "checkpoint.hpp"\n'
                             "int run(const Session& s) {\n"
                             "  char c = '\"';  // a quote as a char: \"field\" stays a comment\n"
                             "  return s.workload_names().size() + c;\n}\n"),
    "compute/CMakeLists.txt": ("# field/, lsq/: every folder's files\n"
                               "file(GLOB_RECURSE CXX ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)\n"),
    "render/plane_view.cpp": 'const char* kTitle = R"(plane view)";\n',
}


def run(changes=(), allowed=()):
    """Writes BASE with `changes` (path -> text; None removes) under a fresh root and checks it
    with `allowed`. Returns (exit code as main gives it, output)."""
    files = dict(BASE)
    files.update(dict(changes))
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            if text is None:
                continue
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        found, _ = check.offences(root, list(allowed))
        return (1 if found else 0), "\n".join(found) + f"\n{len(found)} offences"


FAILURES = []


def expect(name, result, code, needle):
    rc, out = result
    if rc != code or needle not in out:
        FAILURES.append(f"{name}: expected exit {code} and a line with {needle!r}, got exit {rc}:\n"
                        f"{out}")
    else:
        print(f"ok: {name}")


def headless(line):
    return {"app/cli/headless.cpp": BASE["app/cli/headless.cpp"] + line + "\n"}


expect("the clean tree passes (own places, comments, registries through descriptors)", run(),
       0, "0 offences")
expect("a workload's name as a string",
       run(headless('bool study(const Session& s) { return s.name() == "oscillators"; }')),
       1, "app/cli/headless.cpp:6: names the workload oscillators ('oscillators'")
expect("an include of a workload's folder",
       run({"app/mpi/mpi_headless.cpp": '#include "oscillators/study_checkpoint.hpp"\n'}),
       1, "app/mpi/mpi_headless.cpp:1: names the workload oscillators")
expect("a namespace of a workload",
       run({"app/frontend/outputs.cpp": "int n() {\n  return field::outputs();\n}\n"}),
       1, "app/frontend/outputs.cpp:2: names the workload field ('field'")
expect("a workload's namespace alias", run(headless("int e = osc::estimate();")),
       1, "app/cli/headless.cpp:6: names the workload oscillators ('osc'")
expect("a workload's alias in a string", run(headless('const char* unit = "osc-steps";')),
       1, "names the workload oscillators ('osc'")
expect("an identifier with a workload's name as a word",
       run({"app/run/output/stat_labels.cpp": BASE["app/run/output/stat_labels.cpp"] +
            "const std::vector<StatLabel> kLsq = {};\n"}),
       1, "app/run/output/stat_labels.cpp:6: names the workload lsq ('lsq'")
expect("a function named after a workload",
       run({"app/python/module.cpp": "void bind_oscillators(py::module_& m);\n"}),
       1, "app/python/module.cpp:1: names the workload oscillators")
expect("a workload's folder in CMake",
       run({"compute/CMakeLists.txt": BASE["compute/CMakeLists.txt"] +
            "set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/field/share_sums.cpp)\n"}),
       1, "compute/CMakeLists.txt:3: names the workload field")
expect("a raw string naming a workload",
       run({"render/plane_view.cpp": 'const char* kTitle = R"(lsq residuals)";\n'}),
       1, "render/plane_view.cpp:1: names the workload lsq")
expect("a line after an apostrophe outside quotes is reported at its own number",
       run({"app/python/setup.py.in": "# the module's setup\n"
            'setup(description="field values")\n'}),
       1, "app/python/setup.py.in:2: names the workload field")
expect("a new workload's folder makes its name one",
       run({"app/run/waves/waves_workload.cpp": "int x;\n",
            **headless('const char* w = "waves";')}),
       1, "app/cli/headless.cpp:6: names the workload waves")
expect("a workload's own folders are not checked, also where they name another",
       run({"app/run/lsq/lsq_workload.cpp": BASE["app/run/lsq/lsq_workload.cpp"] +
            'const char* other = "field";\n'}),
       0, "0 offences")

# Allowances: a line let through, an unused one, and a registry that the page does not name.
registry = ("app/run/output/stat_labels.cpp", "kLsq", True, "the fixture's registry")
violation = {"app/run/output/stat_labels.cpp": BASE["app/run/output/stat_labels.cpp"] +
             "const std::vector<StatLabel> kLsq = {};\n"}
page = {"docs/dev/adding-a-workload.md": "Add a line to app/run/output/stat_labels.cpp.\n"}
expect("an allowance lets its line through", run({**violation, **page}, [registry]),
       0, "0 offences")
expect("an allowance no longer used", run(page, [registry]),
       1, "the allowance app/run/output/stat_labels.cpp 'kLsq' is no longer used")
expect("a registry the page 'Adding a workload' does not name",
       run({**violation, "docs/dev/adding-a-workload.md": "Nothing.\n"}, [registry]),
       1, "docs/dev/adding-a-workload.md does not name app/run/output/stat_labels.cpp")
expect("a folder allowance covers its files",
       run({"app/python/module.cpp": "void bind_oscillators(py::module_& m);\n"},
           [("app/python/", "", False, "the fixture's Python API")]),
       0, "0 offences")

if FAILURES:
    print("\n".join(FAILURES))
    sys.exit(1)
