"""The package's copyright file (/usr/share/doc/simscope/copyright, resources/debian/copyright) is
machine-readable in Debian's copyright format 1.0 (DEP-5): a header paragraph with Format, then
Files paragraphs with Files, Copyright and License; every licence a Files paragraph names has its
text there or in a stand-alone License paragraph (or /usr/share/common-licenses names it); no
stand-alone License paragraph goes unused. The first Files paragraph is simscope's own: "*", the
simscope developers, no licence chosen (all rights reserved). The third-party code compiled into
the binaries (Dear ImGui, stb, Eigen, nlohmann-json, pybind11, glad's loader, DejaVu Sans,
matplotlib's colormaps) each has its paragraph. One line per problem; exit 1.
Usage: check_copyright.py COPYRIGHT_FILE"""
import os
import re
import sys

FORMAT = "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
OWN = "Not chosen yet; all rights reserved until the owners choose one."
THIRD_PARTY = {  # a Files pattern each of these must appear in
    "Dear ImGui": "libimgui.a", "stb": "stb_truetype.h", "Eigen": "eigen3/",
    "nlohmann-json": "nlohmann/", "pybind11": "pybind11/", "glad": "glad/",
    "DejaVu Sans": "DejaVuSans.ttf", "colormaps": "resources/colormaps/",
}

if len(sys.argv) != 2:
    sys.exit("usage: check_copyright.py COPYRIGHT_FILE")
path = sys.argv[1]
if not os.path.isfile(path):
    sys.exit(f"FAIL: no copyright file {path}")
text = open(path, encoding="utf-8").read()
errors = []


def paragraphs(text):
    out = []
    for block in re.split(r"\n[ \t]*\n", text.strip("\n")):
        fields, last = {}, None
        for n, line in enumerate(block.split("\n")):
            if line.startswith((" ", "\t")) and last:
                fields[last] += "\n" + line[1:]
            elif re.match(r"^[A-Za-z][A-Za-z0-9-]*:", line):
                last, value = line.split(":", 1)
                if last in fields:
                    errors.append(f"field {last} twice in a paragraph: {line}")
                fields[last] = value.strip()
            else:
                errors.append(f"not a field or a continuation line: {line!r}")
        out.append(fields)
    return out


paras = paragraphs(text)
header, rest = paras[0], paras[1:]
if header.get("Format") != FORMAT:
    errors.append(f"the header's Format is {header.get('Format')!r}, not {FORMAT}")
files = [p for p in rest if "Files" in p]
licences = {p["License"].split("\n")[0].strip(): p for p in rest
            if "Files" not in p and "License" in p}
for p in rest:
    if "Files" not in p and ("License" not in p or set(p) - {"License", "Comment"}):
        errors.append(f"a paragraph that is neither Files nor License: {sorted(p)}")
used = set()
for p in files:
    for f in ("Copyright", "License"):
        if not p.get(f, "").strip():
            errors.append(f"Files: {p['Files'].split()[0]}: no {f}")
    synopsis, _, body = p.get("License", "").partition("\n")
    names = [n for n in re.split(r"\s+(?:or|and)\s+|[()]", synopsis) if n.strip()]
    for name in (n.strip() for n in names):
        used.add(name)
        if body.strip() and len(names) == 1:
            continue
        if name not in licences and not os.path.exists(f"/usr/share/common-licenses/{name}"):
            errors.append(f"Files: {p['Files'].split()[0]}: licence {name} has no text")
for name in licences:
    if name not in used:
        errors.append(f"stand-alone License: {name} is named by no Files paragraph")
if not files:
    errors.append("no Files paragraph")
else:
    own = files[0]
    if own.get("Files") != "*" or own.get("Copyright") != "the simscope developers":
        errors.append(f"the first Files paragraph is not simscope's own (*, the simscope developers)")
    if OWN not in " ".join(own.get("License", "").split()):
        errors.append(f"simscope's own License does not say: {OWN}")
patterns = " ".join(p.get("Files", "") for p in files)
for what, needle in THIRD_PARTY.items():
    if needle not in patterns:
        errors.append(f"no Files paragraph for {what} ({needle}), which the binaries carry")
for e in errors:
    print(f"FAIL: {path}: {e}")
if errors:
    sys.exit(1)
print(f"ok: {path}: DEP-5, {len(files)} Files and {len(licences)} License paragraphs")
