#!/usr/bin/env python3
"""A workload's knowledge stays in its folders (docs/dev/adding-a-workload.md).

Usage: check_workload_names.py SOURCE_DIR [--no-allowances]

The workloads are the folders NAME of app/run/ that hold NAME_workload.cpp; a namespace alias of
one (`namespace osc = simscope::oscillators`) is a name of it too. Every file under app/, compute/,
render/ and cmake/ (C++, CUDA, CMake, Python) and the top CMakeLists.txt is read outside its
comments, and fails the check (exit 1, one line per offence) where it names a workload:
 - a string literal holding a name as a word: "field", "oscillators/study.hpp", "osc-steps";
 - an identifier with a name as one of its words: field::, lsq_descriptor, kOscillators, bind_lsq;
 - in CMake and Python, any such word: ${dir}/field/*.cpp;
unless the file is one of the workload's own places: compute/NAME/, app/run/NAME/,
app/gui/NAME_gui.cpp, app/python/py_NAME.cpp; or ALLOWED lets that line through. ALLOWED entries
marked as registries are the lines a new workload adds: docs/dev/adding-a-workload.md must name
their files. An entry no longer used fails too (the list only shrinks).
--no-allowances checks without ALLOWED (the checker's own tests, on fixture trees).
"""
import os
import re
import sys

# Where naming a workload is legitimate outside its own places: (path or folder/, a fragment of
# the line, or "" for every line; whether a new workload adds a line there; why).
ALLOWED = [
    ("app/run/workload_registry.cpp", "_descriptor()", True,
     "the registry: one line per workload"),
    ("app/gui/workload_gui_registry.cpp", "_gui", True,
     "the window's registry of workload panels: one line per workload"),
    ("app/python/module.cpp", "bind_", True,
     "the Python module's registry: one bind_NAME line per workload"),
    ("app/python/CMakeLists.txt", "py_", True,
     "the Python module's source list: one py_NAME.cpp per workload"),
    ("app/python/simscope/", "", False,
     "the Python API: simscope.field(), .lsq(), .oscillators(), their keywords and results"),
    ("app/python/examples/", "", False, "the Python API's examples, one or more per workload"),
    ("app/python/setup.py.in", "workloads (field, lsq, oscillators)", False,
     "the package's description says what simscope computes"),
    ("app/python/simscope_build.py", "workloads (field, lsq, oscillators)", False,
     "the package's description says what simscope computes"),
    ("app/cli/cli.cpp", "seed-field", False, "presets: --preset's help names the shipped ones"),
    ("app/cli/cli.cpp", "seed-lsq", False, "presets: --preset's help names the shipped ones"),
    ("app/cli/cli.cpp", "Headless field under mpirun", False,
     "--mpi-split's help says which workload splits more than one way"),
    ("app/cli/cli.cpp", "(field: its two axes; lsq:", False,
     "--profile's help says what the coordinates are per workload"),
    ("app/gui/status_bar.cpp", "(lsq: the pixel inspector)", False,
     "the F1 help names lsq's panel that a click opens"),
    ("app/gui/status_bar.cpp", "a number field", False, "the English word: a text field"),
    ("render/phase_view.cpp", "oscillators", False,
     "the phase view draws oscillators' phases: the physics' word; render knows no workload"),
    ("cmake/SimscopePackage.cmake", "the field of millions", False,
     "the package's description says what simscope computes"),
]

CODE = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".cc", ".in")
SCRIPT = (".cmake", ".py", "CMakeLists.txt")
ROOTS = ("app", "compute", "render", "cmake")


def workload_names(root):
    """The workloads (app/run/NAME/NAME_workload.cpp) and their aliases: {word: workload}."""
    run = os.path.join(root, "app", "run")
    names = {}
    for d in sorted(os.listdir(run)) if os.path.isdir(run) else []:
        if os.path.isfile(os.path.join(run, d, d + "_workload.cpp")):
            names[d] = d
    alias = re.compile(r"namespace\s+(\w+)\s*=\s*(?:::)?simscope::(\w+)\s*;")
    for path in source_files(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for m in alias.finditer(f.read()):
                if m.group(2) in names:
                    names[m.group(1)] = m.group(2)
    return names


def source_files(root):
    if os.path.isfile(os.path.join(root, "CMakeLists.txt")):
        yield "CMakeLists.txt"
    for top in ROOTS:
        for d, subdirs, files in os.walk(os.path.join(root, top)):
            subdirs.sort()
            for f in sorted(files):
                if f.endswith(CODE) or f.endswith(SCRIPT):
                    yield os.path.relpath(os.path.join(d, f), root)


def own_place(path, names):
    """The workload whose own place `path` is, or None."""
    for n in set(names.values()):
        if (path.startswith((f"compute/{n}/", f"app/run/{n}/")) or
                path in (f"app/gui/{n}_gui.cpp", f"app/python/py_{n}.cpp")):
            return n
    return None


def code_parts(text):
    """C++ text split into (kind, line, text) pieces: "code" and "string" (literals, quotes
    included; raw strings too); comments dropped. Char literals count as code."""
    out, i, line, n = [], 0, 1, len(text)
    start, start_line = 0, 1

    def flush(end, kind="code"):
        if end > start:
            out.append((kind, start_line, text[start:end]))

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            flush(i)
            j = text.find("\n", i)
            i = n if j < 0 else j
            start, start_line = i, line
        elif text.startswith("/*", i):
            flush(i)
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
            start, start_line = i, line
        elif c == '"' or (c == "R" and text.startswith('R"', i) and
                          (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))):
            flush(i)
            if c == "R":
                m = re.match(r'R"([^(\s]*)\(', text[i:])
                end = text.find(")" + (m.group(1) if m else "") + '"', i)
                j = n if end < 0 else end + len(m.group(1) if m else "") + 2
            else:
                j = i + 1
                while j < n and text[j] not in '"\n':
                    j += 2 if text[j] == "\\" else 1
                j = min(j + 1, n)
            out.append(("string", line, text[i:j]))
            line += text.count("\n", i, j)
            i = j
            start, start_line = i, line
        elif c == "'":
            j = i + 1
            while j < n and text[j] not in "'\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1 if j < n and text[j] == "'" else j  # an unclosed ' ends at its line's end
        else:
            if c == "\n":
                line += 1
            i += 1
            if c == "\n" and start == i - 1:
                start, start_line = i, line
    flush(n)
    return out


def script_parts(text):
    """CMake or Python text without its # comments (a # inside quotes is kept), per line."""
    out = []
    for k, raw in enumerate(text.split("\n"), 1):
        keep, quote = [], None
        for c in raw:
            if quote:
                quote = None if c == quote else quote
            elif c in "\"'":
                quote = c
            elif c == "#":
                break
            keep.append(c)
        out.append(("script", k, "".join(keep)))
    return out


def words(text):
    """Identifier words: snake_case and CamelCase parts, lower case."""
    for ident in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        for part in ident.split("_"):
            for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", part):
                yield w.lower()


def string_words(literal):
    """The words of a string literal: letters and digits between other characters."""
    return [w for w in re.findall(r"[A-Za-z0-9]+", literal)]


def offences(root, allowed):
    names = workload_names(root)
    found, used, seen = [], set(), set()
    for path in source_files(root):
        if own_place(path, names):
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.split("\n")
        parts = script_parts(text) if path.endswith(SCRIPT) else code_parts(text)
        for kind, line, piece in parts:
            ws = string_words(piece) if kind == "string" else list(words(piece))
            for w in ws:
                if w not in names:
                    continue
                # A piece may span lines; report the line holding the word.
                m = re.search(re.escape(w), piece, re.I)
                at = line + piece[: m.start() if m else 0].count("\n")
                src = lines[at - 1] if at - 1 < len(lines) else piece
                entry = next((a for a in allowed if (path == a[0] or (
                    a[0].endswith("/") and path.startswith(a[0]))) and a[1] in src), None)
                if entry:
                    used.add(entry[:2])
                    continue
                if (path, at) in seen:
                    continue
                seen.add((path, at))
                found.append(f"{path}:{at}: names the workload {names[w]} ({w!r} in "
                             f"{src.strip()[:100]!r}): keep it in compute/{names[w]}/, "
                             f"app/run/{names[w]}/, app/gui/{names[w]}_gui.cpp or "
                             f"app/python/py_{names[w]}.cpp and reach it through the "
                             f"WorkloadDescriptor, or allow the line in "
                             f"tests/setup/check_workload_names.py with a reason")
                break
    for a in allowed:
        if a[:2] not in used:
            found.append(f"tests/setup/check_workload_names.py: the allowance {a[0]} "
                         f"{a[1]!r} is no longer used: remove it")
    doc = os.path.join(root, "docs", "dev", "adding-a-workload.md")
    if allowed and os.path.isfile(doc):
        with open(doc, encoding="utf-8") as f:
            page = f.read()
        for a in allowed:
            if a[2] and a[0] not in page:
                found.append(f"docs/dev/adding-a-workload.md does not name {a[0]}, where a new "
                             f"workload adds a line ({a[3]})")
    return found, names


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = os.path.abspath(argv[1])
    allowed = [] if "--no-allowances" in argv[2:] else ALLOWED
    found, names = offences(root, allowed)
    for line in found:
        print(line)
    print(f"workloads {', '.join(sorted(set(names.values())))} "
          f"(names {', '.join(sorted(names))}): {len(found)} offences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
