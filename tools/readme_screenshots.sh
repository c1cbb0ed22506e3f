#!/bin/bash
# Regenerates README.md's pictures, resources/screenshots/*.png, from the program itself: one
# headless view.png per workload (EGL: no display needed) and one window screenshot under Xvfb
# (tests/e2e/xvfb_exec.py; skipped with a notice where Xvfb is missing). CPU back end, fixed
# seeds: the headless images are the same on every run of one build; the window's status bar
# shows the FPS of the moment. About 30 s on 2 cores.
#
# Usage: tools/readme_screenshots.sh [SIMSCOPE] [OUT_DIR]
#   SIMSCOPE  the executable (default build/app/simscope, or $SIMSCOPE_BUILD_DIR/app/simscope)
#   OUT_DIR   where the PNGs go (default resources/screenshots)
# Then look at them, and commit them when they read well (each under about 150 KB).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
simscope="${1:-$root/${SIMSCOPE_BUILD_DIR:-build}/app/simscope}"
out="${2:-$root/resources/screenshots}"
[ -x "$simscope" ] || { echo "readme_screenshots: no executable $simscope (build first: ./simscope.sh build)" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
size=720x480

headless() {  # headless NAME ARGS...: one run's view.png as $out/NAME.png
  local name="$1"; shift
  "$simscope" --headless --backend cpu --quiet --out-dir "$work/$name" --out "$out/$name.png" \
    --image-size "$size" "$@"
  echo "$out/$name.png: $(stat -c %s "$out/$name.png") bytes"
}

# field: |E| (log scale) of 150 generated +q/-q dipole pairs in [-1, 1]^3 on the plane z = 0.
headless field --workload field --set sources.distribution=dipoles --set sources.count=300 \
  --set plane=xy --set grid.size=400 --set grid.half_width=1.2 --set view=magnitude \
  --set view.scale=log --set view.colormap=inferno

# lsq: component 5 of the per-pixel solution of a synthetic 240 x 360 cube, M = 40 observations,
# N = 12 unknowns, 30 % of the entries missing (NaN) at random: smooth maps despite the gaps.
headless lsq --workload lsq --set synth.height=240 --set synth.width=360 \
  --set synth.observations=40 --set synth.unknowns=12 --set synth.nan_fraction=0.3 \
  --set view=solution --set view.component=5 --set view.scale=linear --set view.colormap=viridis

# oscillators: the final phases of a study of 48 rings of 240 Stuart-Landau oscillators (3
# neighbours on each side, coupling 0.5, 20,000 RK4 steps): each column one member, most of
# them settled into twisted states (the phase winding smoothly along the ring).
headless oscillators --workload oscillators --set ensemble.size=48 --set network.nodes=240 \
  --set network.topology=ring --set network.k=6 --set model.coupling=0.5 \
  --set integrator.steps=20000 --set view=phases

# The window (1040 x 640, a fresh settings folder so that no saved window size applies): the
# oscillators' live view of member 0, 120 frames after the first result.
if command -v Xvfb >/dev/null; then
  mkdir -p "$work/home"
  HOME="$work/home" XDG_CONFIG_HOME="$work/home" /usr/bin/python3 "$root/tests/e2e/xvfb_exec.py" \
    1040x640 "$simscope" --backend cpu --workload oscillators --frames 120 \
    --screenshot "$out/window.png" > "$work/window.log" 2>&1 \
    || { cat "$work/window.log" >&2; exit 1; }
  echo "$out/window.png: $(stat -c %s "$out/window.png") bytes"
else
  echo "readme_screenshots: Xvfb not found (apt-get install xvfb): $out/window.png left as it was" >&2
fi
