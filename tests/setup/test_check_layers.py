#!/usr/bin/env python3
"""Tests of check_layers.py on fixture trees: each deliberate violation of the layers fails the
check with a line naming it, and the same tree without it passes."""
import json
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layers.py")


def run_check(files, units, extra_dirs=()):
    """Writes `files` (path -> text) under a fresh root, a compile_commands.json compiling
    `units` (path -> the include directories, relative to the root; "@render" stands for a build
    directory whose render/ links to the root's render/, as render's CMakeLists makes it), and runs
    the check without allowances. Returns (exit code, output)."""
    with tempfile.TemporaryDirectory() as tmp:
        root, build = os.path.join(tmp, "src"), os.path.join(tmp, "build")
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        os.makedirs(os.path.join(build, "render_include"))
        os.makedirs(os.path.join(root, "render"), exist_ok=True)
        os.symlink(os.path.join(root, "render"), os.path.join(build, "render_include", "render"))
        commands = []
        for path, dirs in units.items():
            flags = []
            for d in dirs:
                flags.append("-I" + (os.path.join(build, "render_include") if d == "@render"
                                     else os.path.normpath(os.path.join(root, d))))
            commands.append({"directory": build, "file": os.path.join(root, path),
                             "command": "c++ " + " ".join(flags) + " -c " + path})
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump(commands, f)
        p = subprocess.run([sys.executable, CHECK, root, build, "--no-allowances"],
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


FAILURES = []


def expect(name, result, code, needle):
    rc, out = result
    if rc != code or needle not in out:
        FAILURES.append(f"{name}: expected exit {code} and a line with {needle!r}, got exit {rc}:\n"
                        f"{out}")
    else:
        print(f"ok: {name}")


BASE = {
    "compute/core/error.hpp": "#pragma once\n",
    "compute/io/npy.hpp": '#pragma once\n#include "core/error.hpp"\n',
    "render/plane_view.hpp": "#pragma once\n",
    "app/run/workload.hpp": '#pragma once\n#include "io/npy.hpp"\n',
    "app/run/workload.cpp": '#include "workload.hpp"\n',
    "app/frontend/view.cpp": '#include "workload.hpp"\n#include "render/plane_view.hpp"\n',
    "app/python/module.cpp": '#include "workload.hpp"\n',
}
UNITS = {
    "app/run/workload.cpp": ["app/run", "compute"],
    "app/frontend/view.cpp": ["app/frontend", "app/run", "compute", "@render"],
    "app/python/module.cpp": ["app/python", "app/run", "compute"],
}


def with_(changes, units=None):
    files = dict(BASE)
    files.update(changes)
    return run_check(files, units or UNITS)


expect("the clean tree passes", with_({}), 0, "0 offences")
# The run layer reaches up into render/ (through the repository root on its include path, as
# app/run/workload.hpp did through render/plane_annotations.hpp).
expect("run includes render",
       with_({"app/run/workload.hpp": '#pragma once\n#include "render/plane_view.hpp"\n'},
             {**UNITS, "app/run/workload.cpp": ["app/run", "compute", "@render"]}),
       1, "app/run/workload.hpp includes render/plane_view.hpp: run may include only")
# A header of the run layer that a front end's unit reaches is checked with that unit's flags.
expect("run header reached from a front end",
       with_({"app/run/workload.hpp": '#pragma once\n#include "render/plane_view.hpp"\n'}),
       1, "app/run/workload.hpp includes render/plane_view.hpp")
expect("python includes compute",
       with_({"app/python/module.cpp": '#include "workload.hpp"\n#include "core/error.hpp"\n'}),
       1, "app/python/module.cpp includes compute/core/error.hpp: python may include only")
expect("run includes the front end",
       with_({"app/run/workload.cpp": '#include "workload.hpp"\n#include "view.cpp"\n'},
             {**UNITS, "app/run/workload.cpp": ["app/run", "compute", "app/frontend"]}),
       1, "app/run/workload.cpp includes app/frontend/view.cpp: run may include only")
expect("compute core includes io",
       with_({"compute/core/error.hpp": '#pragma once\n#include "io/npy.hpp"\n'}),
       1, "compute/core/error.hpp includes compute/io/npy.hpp: compute.core may include only")
expect("the repository root exported",
       with_({}, {**UNITS, "app/run/workload.cpp": ["app/run", "compute", "."]}),
       1, "the repository root is on the include path of 1 translation units")
expect("app/ exported",
       with_({}, {**UNITS, "app/frontend/view.cpp": ["app/frontend", "app/run", "compute",
                                                     "@render", "app"]}),
       1, "app/ is on the include path of 1 translation units")

# docs/dev/layout.md's rule table against RULES: the repository's table passes; a row changed fails.
with open(os.path.join(os.path.dirname(CHECK), "..", "..", "docs", "dev", "layout.md")) as f:
    layout = f.read()
expect("the layout page's table as RULES", with_({"docs/dev/layout.md": layout}), 0, "0 offences")
expect("the layout page's table otherwise",
       with_({"docs/dev/layout.md": layout.replace("| run | app/run/ | compute |",
                                                   "| run | app/run/ | compute, render |")}),
       1, "docs/dev/layout.md: run may include compute, render; RULES here say compute")

if FAILURES:
    print("\n".join(FAILURES))
    sys.exit(1)
