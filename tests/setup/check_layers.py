#!/usr/bin/env python3
"""The layers' include rule (docs/dev/layout.md), checked on a configured tree's real include paths.

Usage: check_layers.py SOURCE_DIR BUILD_DIR [--no-allowances]

Reads BUILD_DIR/compile_commands.json and follows every quoted #include of every translation unit
under SOURCE_DIR as the compiler resolves it: the including file's directory first, then the unit's
-I and -isystem directories in order (symbolic links resolved, so render's include directory in the
build tree counts as render/). Headers are followed with the flags of each unit that reaches them.
Every #include line counts, also one inside #if. Fails (exit 1), one line per offence, when
 - a file includes a file of a layer that RULES does not allow it, outside ALLOWED;
 - a translation unit other than app/main.cpp has the repository root or app/ on its include path
   (a target exports it, and header-only includes would bypass the layers);
 - an entry of ALLOWED is no longer used while its includer is compiled (the list only shrinks);
 - the rule table of docs/dev/layout.md says otherwise than RULES.
--no-allowances checks without ALLOWED (the checker's own tests, on fixture trees).
"""
import json
import os
import re
import shlex
import sys

# The layers, by path in the repository: the first prefix that matches names a file's layer.
# Files outside them (tests/, tools/) are not checked.
LAYERS = [
    ("compute/core/", "compute.core"),
    ("compute/io/", "compute.io"),
    ("compute/field/", "compute.field"),
    ("compute/lsq/", "compute.lsq"),
    ("compute/oscillators/", "compute.oscillators"),
    ("render/", "render"),
    ("app/run/", "run"),
    ("app/frontend/", "frontend"),
    ("app/cli/", "cli"),
    ("app/mpi/", "mpi"),
    ("app/gui/", "gui"),
    ("app/python/", "python"),
    ("app/pygui/", "pygui"),
    ("app/main.cpp", "main"),
]

COMPUTE = {"compute.core", "compute.io", "compute.field", "compute.lsq", "compute.oscillators"}
FRONTEND = {"frontend", "run", "render"} | COMPUTE
# What each layer may include besides itself: compute <- run <- frontend (+ render) <- {cli, mpi,
# gui} <- main; python -> run; pygui (the window for Python) -> gui. A layer above may include any
# layer below it on its chain; python binds the run layer alone. Inside compute: core <- io <- each workload, and no workload includes
# another. render stands alone: no compute, no run.
RULES = {
    "compute.core": set(),
    "compute.io": {"compute.core"},
    "compute.field": {"compute.core", "compute.io"},
    "compute.lsq": {"compute.core", "compute.io"},
    "compute.oscillators": {"compute.core", "compute.io"},
    "render": set(),
    "run": set(COMPUTE),
    "frontend": FRONTEND,
    "cli": FRONTEND,
    "mpi": FRONTEND,
    "gui": FRONTEND,
    "main": FRONTEND | {"cli", "mpi", "gui"},
    "python": {"run"},
    "pygui": FRONTEND | {"gui"},
}

# Includes that break RULES, each (includer, included). None today; an entry no longer used
# fails this check, so the list only shrinks.
ALLOWED = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer_of(rel):
    for prefix, name in LAYERS:
        if rel == prefix or rel.startswith(prefix):
            return name
    return None


# The page whose table states RULES for people (the whole page is its "Layout").
LAYOUT_DOC = "docs/dev/layout.md"


def layout_mismatches(root):
    """Where docs/dev/layout.md's rule table differs from RULES; none without that page."""
    path = os.path.join(root, LAYOUT_DOC)
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        section = f.read()
    rows = re.findall(r"^\| ([a-z, ]+) \| [^|]* \| ([^|]*) \|$", section, re.M)
    if not rows:
        return [f"{LAYOUT_DOC}: no rule table (| Layer | Folder | May include |)"]
    problems, above = [], set()
    for names, may in rows:
        names = [n.strip() for n in names.split(",")]
        if names == ["compute"]:  # its folders' order is the compute.* rows of RULES
            above.add("compute")
            continue
        may = may.split(";")[0]
        if "all of the above" in may:
            want = set(above)
        elif "itself only" in may:
            want = set()
        else:
            want = {w.strip() for w in may.split(",")}
        for n in names:
            have = {"compute" if r.startswith("compute.") else r for r in RULES.get(n, {"?"})}
            have.discard(n)
            if have != want:
                problems.append(f"{LAYOUT_DOC}: {n} may include {', '.join(sorted(want))}; "
                                f"RULES here say {', '.join(sorted(have))}")
        above.update(names)
    return problems


def include_dirs(entry):
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    dirs = []
    for i, a in enumerate(args):
        for flag in ("-I", "-isystem=", "-isystem"):
            if a == flag and i + 1 < len(args):
                dirs.append(args[i + 1])
                break
            if a.startswith(flag) and len(a) > len(flag) and flag != "-isystem":
                dirs.append(a[len(flag):])
                break
    base = entry.get("directory", ".")
    return tuple(os.path.realpath(os.path.join(base, d)) for d in dirs)


def main(argv):
    allowances = "--no-allowances" not in argv
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = os.path.realpath(args[0])
    commands = os.path.join(args[1], "compile_commands.json")
    try:
        with open(commands) as f:
            units = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_layers: cannot read {commands}: {e} (configure the build first)")
        return 1
    allowed = ALLOWED if allowances else set()

    def rel(path):
        r = os.path.relpath(path, root)
        return None if r.startswith("..") else r.replace(os.sep, "/")

    offences, used, seen, texts, reached = [], set(), set(), {}, set()
    units_checked = edges = 0

    def text(path):
        if path not in texts:
            try:
                with open(path, errors="replace") as f:
                    texts[path] = f.read()
            except OSError:
                texts[path] = ""
        return texts[path]

    def walk(path, dirs):
        nonlocal edges
        if (path, dirs) in seen:
            return
        seen.add((path, dirs))
        here = rel(path)
        reached.add(here)
        for name in INCLUDE.findall(text(path)):
            for d in (os.path.dirname(path),) + dirs:
                candidate = os.path.join(d, name)
                if os.path.isfile(candidate):
                    target = os.path.realpath(candidate)
                    there = rel(target)
                    if there is not None:
                        edges += 1
                        a, b = layer_of(here), layer_of(there)
                        if a and b and b != a and b not in RULES[a]:
                            if (here, there) in allowed:
                                used.add((here, there))
                            else:
                                may = ", ".join(sorted({a} | RULES[a]))
                                offences.append(f"{here} includes {there}: {a} may include only "
                                                f"{may} ({LAYOUT_DOC})")
                        walk(target, dirs)
                    break

    top_dirs = {root: "the repository root", os.path.join(root, "app"): "app/"}
    exported = {}  # top directory -> units compiled with it on their include path
    for entry in units:
        path = os.path.realpath(os.path.join(entry.get("directory", "."), entry["file"]))
        here = rel(path)
        if here is None:
            continue
        units_checked += 1
        dirs = include_dirs(entry)
        if here != "app/main.cpp":
            for d in dirs:
                if d in top_dirs:
                    exported.setdefault(top_dirs[d], []).append(here)
        walk(path, dirs)

    for what, where in sorted(exported.items()):
        where = sorted(set(where))
        offences.append(f"{what} is on the include path of {len(where)} translation units, e.g. "
                        f"{', '.join(where[:3])}: no target may export the repository root or app/")
    # An entry whose includer this build does not compile (e.g. no Python module) is not judged.
    for entry in sorted(e for e in allowed - used if e[0] in reached):
        offences.append(f"ALLOWED entry {entry} is no longer used: remove it from "
                        "tests/setup/check_layers.py")
    offences += layout_mismatches(root)
    for line in sorted(set(offences)):
        print(line)
    print(f"check_layers: {units_checked} translation units, {edges} includes followed, "
          f"{len(set(offences))} offences, {len(used)} allowed exceptions")
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
