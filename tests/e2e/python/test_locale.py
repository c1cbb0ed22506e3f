"""The module under a comma-decimal locale: after locale.setlocale(LC_ALL, "") with de_DE, every
number simscope reads (an edge list's weights, a CSV of sources, keyword values) and writes (the
warnings' numbers, the schema's defaults) is C-locale text, as on the command line. de_DE is
compiled with localedef into a scratch folder (LOCPATH), the calls run in a child python3."""
import os
import shutil
import subprocess
import sys

import pytest

CHILD = r'''
import locale, re, sys
import numpy as np
import simscope
locale.setlocale(locale.LC_ALL, "")
assert locale.localeconv()["decimal_point"] == ",", locale.localeconv()
assert "%.1f" % 0.5 == "0.5"  # Python's own formatting is not the C library's
d = sys.argv[1]
# an edge list with fractional weights: read as 0.5 and 1.25, not refused
with open(d + "/ring.txt", "w") as f:
    for i in range(6):
        f.write(f"{i} {(i + 1) % 6} {0.5 if i % 2 else 1.25}\n")
r = simscope.oscillators.study(network_topology="file", network_file=d + "/ring.txt", ensemble_size=2,
                         integrator_steps=200, integrator_transient=50, backend="cpu")
assert np.all(np.isfinite(r.msd)), r.msd
# a CSV of sources with decimal points, and a float keyword
with open(d + "/src.csv", "w") as f:
    f.write("0.25,0.5,-0.75,1.5\n-0.5,0.125,0.25,0.5\n")
r = simscope.field(sources_file=d + "/src.csv", grid_size=4, eps=0.5, backend="cpu")
e = np.asarray(r.outputs["magnitude"])
assert np.all(np.isfinite(e)) and e.max() > 0
# a warning with numbers in it: C decimal points, never "2,4e-05"
r = simscope.field(sources_distribution="dipoles", sources_count=20000, method="tree",
                   tree_tolerance=1e-6, plane_offset=3, grid_half_width=3, grid_size=32,
                   precision="fp32", backend="cpu")
w = [x for x in r.warnings if "tree_tolerance" in x]
assert w and re.search(r"\d\.\d", w[0]) and not re.search(r"\d,\d", w[0]), r.warnings
print("ok")
'''


def test_comma_decimal_locale(tmp_path):
    if not shutil.which("localedef") or not os.path.exists("/usr/share/i18n/locales/de_DE"):
        pytest.skip("localedef or the de_DE locale source (package locales) is missing")
    loc = tmp_path / "locale"
    loc.mkdir()
    subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", str(loc / "de_DE.UTF-8")],
                   capture_output=True)
    assert (loc / "de_DE.UTF-8").is_dir(), "localedef could not build de_DE.UTF-8"
    env = dict(os.environ, LOCPATH=str(loc), LC_ALL="de_DE.UTF-8")
    p = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr[-2000:]
