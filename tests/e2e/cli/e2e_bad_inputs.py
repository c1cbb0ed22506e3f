"""Bad input: each case exits non-zero (not by a signal; 2 for command-line errors, 1 for bad
files) with one line on stderr naming the problem, and leaves no partial outputs (an existing
output directory stays as it was).
Usage: e2e_bad_inputs.py SIMSCOPE"""
import json
import os
import sys

import numpy as np

from simscope_test_util import Checker, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("bad_inputs")
rng = np.random.default_rng(1)
good = rng.uniform(-1, 1, (50, 4))


def write(name, data, mode="wb"):
    path = os.path.join(d, name)
    with open(path, mode) as f:
        f.write(data)
    return path


np.save(os.path.join(d, "good.npy"), good)
raw = open(os.path.join(d, "good.npy"), "rb").read()
files = {
    "truncated": write("truncated.npy", raw[: len(raw) // 2]),
    "int8": os.path.join(d, "int8.npy"),
    "object": os.path.join(d, "object.npy"),
    "shape5": os.path.join(d, "shape5.npy"),
    "shape1d": os.path.join(d, "shape1d.npy"),
    "nan": os.path.join(d, "nan.npy"),
    "inf": os.path.join(d, "inf.npy"),
    "empty_npy": write("empty.npy", b""),
    "empty_csv": write("empty.csv", b""),
    "text_csv": write("text.csv", "x,y,z,q\n1,2,3,1\n4,abc,6,1\n", "w"),
    "typo_csv": write("typo.csv", "0,0,0.5,1x\n0,0,-0.5,-1\n", "w"),
}
np.save(files["int8"], np.ones((10, 4), np.int8))
np.save(files["object"], np.array([[1, "a", None, 2]] * 3, dtype=object), allow_pickle=True)
np.save(files["shape5"], np.ones((10, 5)))
np.save(files["shape1d"], np.ones(12))
nan = good.copy(); nan[7, 1] = np.nan; np.save(files["nan"], nan)
inf = good.copy(); inf[3, 2] = np.inf; np.save(files["inf"], inf)
bad_preset = write("bad_preset.json", "{ not json", "w")
# A preset with a syntax error a user makes (a doubled comma), and one whose string never ends:
# the line names the file, the line and column, and what was expected, however long the string.
comma_preset = write("comma_preset.json", '{\n  "workload": "field",\n  "params": {"k": 2,, }\n}\n', "w")
open_string = write("open_string.json", '{"workload": "field", "params": {"k": "' + "x" * 5000, "w")
# Presets with names in the wrong place (QA): view settings under "params", a typo under "view",
# an extra top-level key.
view_in_params = write("view_in_params.json", json.dumps(
    {"simscope_preset": 1, "workload": "field", "params": {"view.colormap": "magma"}}), "w")
view_typo = write("view_typo.json", json.dumps(
    {"simscope_preset": 1, "workload": "field", "params": {}, "view": {"view.colourmap": "magma"}}), "w")
extra_key = write("extra_key.json", json.dumps(
    {"simscope_preset": 1, "workload": "field", "params": {}, "comment": "mine"}), "w")
param_in_view = write("param_in_view.json", json.dumps(
    {"simscope_preset": 1, "workload": "field", "params": {}, "view": {"grid.size": 8}}), "w")
big_seed = write("big_seed.json", '{"simscope_preset": 1, "workload": "field", '
                 '"params": {"sources.seed": 9007199254740993}}', "w")
# Found by tests/fuzz: text from the input with a newline in it (a preset key, a workload name,
# a --set value) split the message over two lines; a long edge-list line came back whole.
newline_key = write("newline_key.json", json.dumps(
    {"simscope_preset": 1, "workload": "field", "params": {}, "extra\nline": 1}), "w")
newline_workload = write("newline_workload.json", json.dumps(
    {"simscope_preset": 1, "workload": "fi\neld", "params": {}}), "w")
long_edges = write("long_edges.txt", "0 " + "1" * 60000 + "x\n", "w")
# An lsq cube of a dtype the reader cannot read: the message lists what the cube accepts.
np.save(os.path.join(d, "A.npy"), rng.standard_normal((6, 2)))
np.save(os.path.join(d, "cube_i2.npy"), np.ones((6, 3, 4), np.int16))
np.save(os.path.join(d, "cube_f8.npy"), np.ones((6, 3, 4)))
np.save(os.path.join(d, "cube_f2.npy"), np.ones((6, 3, 4), np.float16))
np.save(os.path.join(d, "sources_i2.npy"), np.ones((10, 4), np.int16))
np.save(os.path.join(d, "init_f2.npy"), np.ones((100, 2), np.float16))
# A locked colour range the wrong way round, from a preset (fresh-user finding: exit 1 without
# naming view.min/view.max, and a sweep left an empty frames/ folder).
locked_equal = write("locked_equal.json", json.dumps(
    {"simscope_preset": 1, "workload": "field", "params": {},
     "view": {"view.range": "locked", "view.min": 3, "view.max": 3}}), "w")
error_direct = write("error_direct.json", json.dumps(
    {"simscope_preset": 1, "workload": "field", "params": {"view": "error", "method": "direct"}}),
    "w")

# (label, args, words expected in the message (any of), exit status: 2 for command-line errors
# (--help: "2 command-line error"), 1 for bad input files and runtime errors, words that must all
# be in the message, words that must not be)
lsq = ["--workload", "lsq", "--set", f"design.file={d}/A.npy"]
cases = [
    ("truncated .npy", ["--set", f"sources.file={files['truncated']}"], ["truncated"], 1),
    ("int8 dtype", ["--set", f"sources.file={files['int8']}"], ["int8"], 1),
    ("object dtype", ["--set", f"sources.file={files['object']}"], ["object"], 1),
    ("shape (10,5)", ["--set", f"sources.file={files['shape5']}"], ["shape", "(10, 5)"], 1),
    ("shape (12,)", ["--set", f"sources.file={files['shape1d']}"], ["shape"], 1),
    ("NaN coordinate", ["--set", f"sources.file={files['nan']}"], ["nan", "finite"], 1),
    ("Inf coordinate", ["--set", f"sources.file={files['inf']}"], ["inf", "finite"], 1),
    ("empty .npy", ["--set", f"sources.file={files['empty_npy']}"], ["empty", "not a .npy"], 1),
    ("empty CSV", ["--set", f"sources.file={files['empty_csv']}"], ["empty", "no data"], 1),
    ("CSV text cell", ["--set", f"sources.file={files['text_csv']}"], ["abc"], 1),
    ("missing file", ["--set", f"sources.file={d}/nope.npy"], ["nope.npy"], 1),
    ("CSV typo in the first row", ["--set", f"sources.file={files['typo_csv']}"], ["'1x'"], 1),
    ("directory as sources.file", ["--set", f"sources.file={d}"], ["bad_inputs"], 1),
    ("--out in a missing directory", ["--out", f"{d}/nodir/img.png"], ["nodir"], 1),
    ("--out is a directory", ["--out", d], [".png"], 2),
    ("--out not a .png", ["--out", f"{d}/x.jpg"], [".png"], 2),
    ("grid.size 0", ["--set", "grid.size=0"], ["grid.size"], 2),
    ("grid.size 1e6", ["--set", "grid.size=1000000"], ["grid.size"], 2),
    ("grid.size hex", ["--set", "grid.size=0x40"], ["grid.size"], 2, ["'0x40'", "integer"]),
    ("grid.size inner blank", ["--set", "grid.size=6 4"], ["grid.size"], 2, ["'6 4'"]),
    ("k inf", ["--set", "k=inf"], ["parameter k"], 2, ["finite number"]),
    ("sources.seed above its maximum", ["--set", "sources.seed=9007199254740993"], ["sources.seed"],
     2, ["[0, 9007199254740992]", "'9007199254740993'"]),
    ("unknown parameter", ["--set", "grid.sise=10"], ["grid.sise"], 2),
    ("unknown parameter foo", ["--set", "foo=1"], ["'foo'"], 2,
     ["grid.size", "view.colormap", "view.colorbar", "--list-params field"]),
    ("unknown lsq parameter", ["--workload", "lsq", "--set", "grid.size=8"], ["grid.size"], 2,
     ["workload 'lsq'", "view.component", "view.colormap"]),
    ("unknown workload", ["--workload", "nbody"], ["nbody"], 2),
    ("unknown workload fluid", ["--workload", "fluid"], ["fluid"], 2, ["field, lsq, oscillators"]),
    ("bad view value", ["--set", "view.colormap=rainbow"], ["view.colormap"], 2),
    ("bad preset", ["--preset", bad_preset], ["bad_preset.json"], 1),
    ("preset with a doubled comma", ["--preset", comma_preset], ["comma_preset.json"], 1,
     [f"simscope: error: {comma_preset}: not valid JSON at line 3, column 21: unexpected ','; "
      "expected string literal"], ["...", "offset"]),
    ("preset with a string never closed", ["--preset", open_string], ["open_string.json"], 1,
     [f"{open_string}: not valid JSON at line 1, column ", "missing closing quote"], ["x" * 200]),
    ("view setting under params", ["--preset", view_in_params], ["view_in_params.json"], 1,
     ['"view.colormap"', 'under "view"']),
    ("typo under view", ["--preset", view_typo], ["view_typo.json"], 1,
     ["'view.colourmap'", "view settings", "view.colormap"], ["workload 'view'"]),
    ("extra preset key", ["--preset", extra_key], ["extra_key.json"], 1,
     ['"comment"', "simscope_preset, workload, params, view"]),
    ("parameter under view", ["--preset", param_in_view], ["param_in_view.json"], 1,
     ['"grid.size"', 'under "params"']),
    ("preset seed above its maximum", ["--preset", big_seed], ["big_seed.json"], 1,
     ["sources.seed", "9007199254740993"]),
    # A missing cube is named first, before design.file is asked for or read (issue 44).
    ("lsq missing cube, no design.file", ["--workload", "lsq", "--set", f"data.file={d}/nocube.npy"],
     ["nocube.npy"], 1, ["simscope: error: data.file: ", "nocube.npy: cannot open"], ["design.file"]),
    ("lsq missing cube and design.file", ["--workload", "lsq", "--set", f"data.file={d}/nocube.npy",
                                          "--set", f"design.file={d}/noA.npy"],
     ["nocube.npy"], 1, ["simscope: error: data.file: ", "nocube.npy: cannot open"], ["noA.npy"]),
    ("lsq cube of the wrong shape, no design.file",
     ["--workload", "lsq", "--set", f"data.file={files['shape5']}"], ["shape5.npy"], 1,
     ["data.file: ", "expected a cube (M, H, W)"], ["design.file"]),
    # design.file alone (the generator's cube with this A): named as data.file is.
    ("lsq missing design.file alone", ["--workload", "lsq", "--set", f"design.file={d}/noA.csv"],
     ["noA.csv"], 1, [f"simscope: error: design.file: {d}/noA.csv: cannot open"]),
    ("lsq good cube, no design.file", ["--workload", "lsq", "--set", f"data.file={d}/cube_f8.npy"],
     ["design.file"], 1, ["design.file: needed with data.file"]),
    # A preset that is not there: exit status 1 (a bad preset), named or given as a path.
    ("missing preset by name", ["--preset", "nosuch"], ["'nosuch'"], 1,
     ["simscope: error: --preset: ", "no shipped preset of that name", "shipped: seed-field"],
     ["see --help"]),
    ("missing preset file", ["--preset", f"{d}/missing.json"], ["missing.json"], 1,
     ["simscope: error: ", "cannot open"]),
    ("lsq int16 cube", lsq + ["--set", f"data.file={d}/cube_i2.npy"], ["cube_i2.npy"], 1,
     ["int16", "float32 or float64"], ["int32", "int64", "uint8"]),
    ("lsq float16 cube", lsq + ["--set", f"data.file={d}/cube_f2.npy"], ["cube_f2.npy"], 1,
     ["float16", "float32 or float64"], ["int32", "int64", "uint8"]),
    ("field int16 sources", ["--set", f"sources.file={d}/sources_i2.npy"], ["sources_i2.npy"], 1,
     ["int16", "float32 or float64"], ["int32", "int64", "uint8"]),
    ("oscillators float16 init.file", ["--workload", "oscillators", "--set", "init=file",
     "--set", f"init.file={d}/init_f2.npy"], ["init_f2.npy"], 1,
     ["float16", "float32 or float64"], ["int32", "int64", "uint8"]),
    ("preset key with a newline", ["--preset", newline_key], ["newline_key.json"], 1,
     ['"extra?line"']),
    ("preset workload with a newline", ["--preset", newline_workload], ["newline_workload.json"], 1,
     ["'fi?eld'"]),
    ("--set value with a newline", ["--set", "view.colormap=a\nb"], ["view.colormap"], 2, ["'a?b'"]),
    ("--set name with a newline", ["--set", "grid\n.size=3"], ["grid?.size"], 2),
    ("--set without = with a newline", ["--set", "eps\n2"], ["NAME=VALUE"], 2, ["'eps?2'"]),
    ("long edge-list line", ["--workload", "oscillators", "--set", "network.topology=file",
     "--set", f"network.file={long_edges}"], ["long_edges.txt"], 1, ["line 1", "1" * 78 + "..."],
     ["1" * 100]),
    ("locked range min > max", ["--set", "view.range=locked", "--set", "view.min=2",
     "--set", "view.max=1"], ["view.min"], 2, ["view.min = 2", "view.max = 1", "view.range=locked"]),
    ("sweep with a locked range min > max", ["--sweep", "k=1:2:2", "--set", "view.range=locked",
     "--set", "view.min=0.5", "--set", "view.max=-0.5"], ["view.min"], 2,
     ["view.min = 0.5", "view.max = -0.5"]),
    ("preset locked range min = max", ["--preset", locked_equal], ["locked_equal.json"], 1,
     ["view.min = 3", "view.max = 3"]),
    ("locked log range through 0", ["--set", "view.range=locked", "--set", "view.min=-1",
     "--set", "view.max=1"], ["view.min"], 1, ["view.min = -1", "log", "view.scale=linear"]),
    ("sweep with a locked log range through 0", ["--sweep", "k=1:2:2", "--set", "view.range=locked",
     "--set", "view.min=0", "--set", "view.max=1"], ["view.min"], 1, ["view.min = 0", "log"]),
    # The error view needs the tree: refused before computing (exit 2), not after (it was 1).
    ("error view with direct sums", ["--set", "view=error", "--set", "method=direct"],
     ["view=error"], 2, ["method=direct", "method=tree"]),
    ("sweep of the error view with direct sums", ["--sweep", "k=1:2:2", "--set", "view=error",
     "--set", "method=direct"], ["view=error"], 2, ["method=direct", "method=tree"]),
    ("preset of the error view with direct sums", ["--preset", error_direct],
     ["error_direct.json"], 1, ["view=error", "method=direct", "method=tree"]),
    ("negative eps", ["--set", "eps=-1"], ["eps"], 2),
    ("set without =", ["--set", "eps"], ["NAME=VALUE"], 2),
    ("bad backend", ["--backend", "gpu"], ["backend"], 2),
]
for label, args, words, code, *more in cases:
    all_words = more[0] if more else []
    no_words = more[1] if len(more) > 1 else []
    out = os.path.join(d, "out_" + label.replace(" ", "_").replace("/", "_"))
    # An existing output directory with an earlier result must stay as it was.
    os.makedirs(out, exist_ok=True)
    marker = os.path.join(out, "magnitude.npy")
    with open(marker, "wb") as f:
        f.write(b"earlier result")
    p = run(simscope, "--headless", "--backend", "cpu", "--out-dir", out, *args) if "--backend" not in args \
        else run(simscope, "--headless", "--out-dir", out, *args)
    lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower() or "simscope:" in l]
    msg = lines[-1] if lines else ""
    c.check(p.returncode in (1, 2), f"{label}: simscope's own error status 1 or 2 (got {p.returncode})")
    c.check(p.returncode == code, f"{label}: exit status {p.returncode}, expected {code}")
    c.check(any(w.lower() in msg.lower() for w in words), f"{label}: message names the problem: {msg!r}")
    for w in all_words:
        c.check(w in msg, f"{label}: message says {w!r}")
    for w in no_words:
        c.check(w not in msg, f"{label}: message does not say {w!r}")
    c.check(len(lines) == 1 and len(errors) == 1 and lines[0].startswith("simscope: error: "), f"{label}: one line on stderr: {lines!r}")
    c.check(sorted(os.listdir(out)) == ["magnitude.npy"] and open(marker, "rb").read() == b"earlier result",
            f"{label}: no partial outputs, earlier result intact")
    # A fresh output directory is not even created.
    fresh = out + "_fresh"
    # The default back end (auto): its notice must not come before the error line.
    p2 = run(simscope, "--headless", "--out-dir", fresh, *args)
    lines2 = [l for l in p2.stderr.strip().splitlines() if l.strip()]
    c.check(p2.returncode == code and not os.path.exists(fresh), f"{label}: exit {p2.returncode}, no output directory created")
    c.check(len(lines2) == 1 and lines2[0].startswith("simscope: error: "), f"{label} (auto back end): one line: {lines2!r}")
c.done()
