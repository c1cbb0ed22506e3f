#!/usr/bin/env bash
# ctest install.prefix: `cmake --install BUILD --prefix TMP` into a temporary prefix, then the
# INSTALLED program: a small headless field run (CPU back end), --version, the docs/ pages
# --help names (installed), a shipped preset by
# name, the Python package
# from TMP/lib/python3/dist-packages (one tiny computation), the desktop entry through
# desktop-file-validate, the icon's SVG and PNG sizes, the man page, and the installed README's
# pictures (every image link of share/doc/simscope/README.md resolves to an installed file), the
# copyright file (tests/install/check_copyright.py).
#   tests/install/test_install.sh BUILD_DIR [PYTHON]
set -euo pipefail
build="$(cd "$1" && pwd)"
python="${2:-/usr/bin/python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

p="$tmp/prefix"
cmake --install "$build" --prefix "$p" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
echo "installed into a temporary prefix: $(find "$p" -type f | wc -l) files"

# The executable, run from its installed place (nothing of the build folder on its paths).
exe="$p/bin/simscope"
[ -x "$exe" ] || fail "no bin/simscope"
[ ! -e "$p/bin/simscope-bench" ] || fail "simscope-bench is a developer's tool: not installed"
"$exe" --version | grep -q '^simscope [0-9]' || fail "--version"
# --help's pointers to the documentation (docs/NAME.md) hold for the installed tree: each page
# it names is installed under share/doc/simscope/, and it says where that is.
help="$("$exe" --help)"
pages="$(grep -o 'docs/[a-z_/-]*\.md' <<< "$help" | sort -u)"
[ -n "$pages" ] || fail "--help names no docs/ page"
for page in $pages; do
  [ -f "$p/share/doc/simscope/$page" ] || fail "--help names $page: not installed"
done
grep -q 'share/doc/simscope/docs/' <<< "$help" || fail "--help does not say where the docs are installed"
cd "$tmp"
"$exe" --headless --backend cpu --out-dir run --set grid.size=16 --set sources.count=50 \
  --image-size 64x64 > run.log 2>&1 || { cat run.log; fail "the installed simscope's headless run"; }
for f in magnitude.npy ex.npy potential.npy view.png run.json; do
  [ -s "run/$f" ] || fail "the headless run wrote no run/$f"
done
"$python" - "$tmp/run" <<'EOF' || fail "the headless run's outputs"
import json, sys, numpy as np
d = sys.argv[1]
m = np.load(d + "/magnitude.npy")
assert m.shape == (16, 16) and m.dtype == np.float32 and np.isfinite(m).all() and m.max() > 0, m
assert json.load(open(d + "/run.json"))["backend"]["name"] == "cpu"
EOF

# The shipped presets, installed and found by name from the installed executable's folder
# (../share/simscope/presets, searched before the source tree): one added there is loaded.
for n in seed-field seed-lsq seed-lsq-rank seed-oscillators; do
  [ -f "$p/share/simscope/presets/$n.json" ] || fail "no share/simscope/presets/$n.json"
done
echo '{"simscope_preset": 1, "workload": "lsq", "params": {"synth.height": 3, "synth.width": 5}}' \
  > "$p/share/simscope/presets/installed-only.json"
"$exe" --headless --backend cpu --preset installed-only --out-dir preset --no-image > preset.log 2>&1 ||
  { cat preset.log; fail "--preset NAME from the installed prefix"; }
"$python" -c "import numpy as np, sys; s = np.load(sys.argv[1]).shape; assert s == (3, 5), s" \
  preset/residual.npy || fail "--preset installed-only: not its 3 x 5 pixels"

# The Python package in the Debian interpreter's layout, importable from there alone.
site="$p/lib/python3/dist-packages"
ls "$site"/simscope/_core*.so > /dev/null || fail "no $site/simscope/_core*.so"
[ -f "$site/simscope/__init__.py" ] || fail "no $site/simscope/__init__.py"
PYTHONPATH="$site" "$python" -s - "$site" <<'EOF' || fail "import simscope from the installed prefix"
import sys, numpy as np, simscope
assert simscope.__file__.startswith(sys.argv[1]), simscope.__file__
r = simscope.field(np.array([[0.0, 0.0, 0.0, 1.0]]), np.array([[1.0, 0.0, 0.0]]), k=1.0,
                   eps=0.0, precision="fp64", backend="cpu")
assert abs(float(r.magnitude[0]) - 1.0) < 1e-6 and r.backend == "cpu", (r.magnitude, r.backend)
print("python: simscope from", simscope.__file__)
EOF

# The desktop entry, the icon, the man page.
desktop="$p/share/applications/simscope.desktop"
[ -f "$desktop" ] || fail "no share/applications/simscope.desktop"
desktop-file-validate "$desktop" || fail "desktop-file-validate $desktop"
grep -qx 'Exec=simscope' "$desktop" && grep -qx 'Icon=simscope' "$desktop" || fail "Exec/Icon lines"
# Its keywords stay true of every build: simscope runs on the CPU too, so none names CUDA or a GPU.
if grep -iE '^Keywords=(.*;)?(cuda|gpu)(;|$)' "$desktop"; then fail "the desktop entry's keywords name CUDA or a GPU"; fi
icons="$p/share/icons/hicolor"
[ -f "$icons/scalable/apps/simscope.svg" ] || fail "no scalable/apps/simscope.svg"
for n in 16 32 48 64 128 256; do
  png="$icons/${n}x${n}/apps/simscope.png"
  [ -f "$png" ] || fail "no ${n}x${n}/apps/simscope.png"
  # PNG width and height: big-endian at bytes 16..23 of the IHDR chunk.
  [ "$(od -An -tu1 -j16 -N8 "$png" | awk '{print $3*256+$4 "x" $7*256+$8}')" = "${n}x${n}" ] ||
    fail "$png is not ${n}x${n}"
done
man="$p/share/man/man1/simscope.1.gz"
[ -f "$man" ] || fail "no share/man/man1/simscope.1.gz"
zcat "$man" | grep -q '^\.TH SIMSCOPE "1"' || fail "the man page has no .TH SIMSCOPE 1 header"
zcat "$man" | grep -q 'list\\-params' || fail "the man page does not carry --help's text"
if zcat "$man" | grep -q "$build"; then fail "the man page names the build folder"; fi

# The installed README shows its pictures: each image link resolves to an installed file, the
# same bytes as the repository's (the screenshots, share/doc/simscope/resources/screenshots/).
doc="$p/share/doc/simscope"
"$python" "$(dirname "${BASH_SOURCE[0]}")/check_doc_images.py" "$doc/README.md" "$p" ||
  fail "the installed README's image links"
src="$(dirname "${BASH_SOURCE[0]}")/../.."
for png in "$src"/resources/screenshots/*.png; do
  cmp -s "$png" "$doc/resources/screenshots/$(basename "$png")" ||
    fail "share/doc/simscope/resources/screenshots/$(basename "$png") is not the repository's"
done
# The copyright file (Debian's machine-readable format; simscope's own licence not chosen yet).
"$python" "$(dirname "${BASH_SOURCE[0]}")/check_copyright.py" "$doc/copyright" ||
  fail "share/doc/simscope/copyright"
echo "PASS: installed program, Python package, desktop entry, icons, man page, README pictures" \
  "and copyright file"
