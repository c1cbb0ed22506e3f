"""Headless runs into a reused --out-dir, and the exploration options' usage errors:
- --pin-set and --sweep mistakes (unknown parameter, refused value, a non-number swept, a start or
  stop outside the parameter's range) exit 2 before anything runs or is written;
- run.json records --pin-set's A parameters (the same as pinned/run.json's);
- a second run into the same folder removes what the first wrote and it does not: profile.csv,
  pinned/, difference/, the frames of a longer sweep and sweep.mp4; files of the user's own in
  those folders stay. Usage: e2e_outdir_reuse.py SIMSCOPE"""
import json
import os
import sys

from simscope_test_util import Checker, read_png, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("e2e_outdir_reuse")
common = ["--headless", "--backend", "cpu", "--set", "grid.size=12", "--set", "sources.count=10"]

# Usage errors: exit 2, a message naming the option, nothing written.
bad = os.path.join(d, "bad")
for args, words in [
        (["--pin-set", "nosuch=1"], ["--pin-set nosuch=1", "unknown parameter"]),
        (["--pin-set", "grid.size=1"], ["--pin-set grid.size=1", "[2, 4096]"]),
        (["--sweep", "grid.size=8:100000:3"], ["--sweep stop 100000", "[2, 4096]"]),
        (["--sweep", "grid.size=1:8:3"], ["--sweep start 1", "[2, 4096]"]),
        (["--sweep", "precision=1:2:3"], ["precision", "not a number"]),
        (["--sweep", "nosuch=1:2:3"], ["unknown parameter 'nosuch'"])]:
    p = run(simscope, *common, "--out-dir", bad, *args)
    c.check(p.returncode == 2 and all(w in p.stderr for w in words) and not os.path.exists(bad),
            f"{' '.join(args)}: exit 2 naming it, nothing written ({p.returncode}, "
            f"{p.stderr.strip()[-200:]!r})")

# --pin-set's parameters in the main run.json.
out = os.path.join(d, "reused")
p = run(simscope, *common, "--no-image", "--out-dir", out, "--pin-set", "k=2", "--pin-set", "eps=0.1",
        "--profile", "-1,0:1,0")
c.check(p.returncode == 0, f"--pin-set and --profile run ({p.stderr.strip()[-300:]!r})")
if p.returncode == 0:
    j = json.load(open(os.path.join(out, "run.json")))
    ja = json.load(open(os.path.join(out, "pinned", "run.json")))
    pin = j.get("pinned", {})
    c.check(pin.get("pin_set") == ["k=2", "eps=0.1"] and pin.get("params") == ja["params"] and
            pin["params"]["k"] == 2 and pin["params"]["eps"] == 0.1 and j["params"]["k"] == 1,
            f"run.json names A's parameters ({pin})")
    for f in ["profile.csv", "pinned", "difference"]:
        c.check(os.path.exists(os.path.join(out, f)), f"{f} written")
    # the user's own file in difference/: kept
    open(os.path.join(out, "difference", "notes.txt"), "w").write("mine\n")

# The same folder, a plain run: the comparison and profile are gone.
p = run(simscope, *common, "--no-image", "--out-dir", out)
c.check(p.returncode == 0, f"plain run into the reused folder ({p.stderr.strip()[-300:]!r})")
c.check(not os.path.exists(os.path.join(out, "profile.csv")), "stale profile.csv removed")
c.check(not os.path.exists(os.path.join(out, "pinned")), "stale pinned/ removed")
c.check(sorted(os.listdir(os.path.join(out, "difference"))) == ["notes.txt"],
        "difference/*.npy removed, the user's file kept")
c.check("pinned" not in json.load(open(os.path.join(out, "run.json"))), "run.json: no A")

# Sweeps: 4 frames, then 2 into the same folder: only 2 frames remain.
sw = os.path.join(d, "sweep")
p = run(simscope, *common, "--image-size", "320x240", "--out-dir", sw, "--sweep", "k=1:4:4")
c.check(p.returncode == 0, f"sweep of 4 frames ({p.stderr.strip()[-300:]!r})")
open(os.path.join(sw, "frames", "readme.txt"), "w").write("mine\n")
p = run(simscope, *common, "--image-size", "320x240", "--out-dir", sw, "--sweep", "k=1:2:2")
c.check(p.returncode == 0, f"sweep of 2 frames ({p.stderr.strip()[-300:]!r})")
frames = sorted(os.listdir(os.path.join(sw, "frames")))
c.check(frames == ["0000.png", "0001.png", "readme.txt"],
        f"the longer sweep's frames 0002, 0003 removed, the user's file kept ({frames})")
# Each frame's caption names the swept value: white text on a dark backdrop, top left (the view
# itself has none there: its title is at the top right, its image centred below).
for k, frame in enumerate(["0000.png", "0001.png"]):
    img = read_png(os.path.join(sw, "frames", frame))[0][:, :, :3].astype(int)
    corner = img[:40, :120]
    white = int(((corner > 230).all(axis=2)).sum())
    dark = int(((corner < 16).all(axis=2)).sum())  # background 28, 28, 33 under black at 0.6
    c.check(white > 40 and dark > 200, f"frame {k}: a caption top left ({white} white, {dark} dark)")
j = json.load(open(os.path.join(sw, "run.json")))
c.check(len(j.get("frames", [])) == 2, f"run.json lists the 2 frames ({len(j.get('frames', []))})")

# A sweep into the folder of an ordinary run: that run's .npy files and view.png go (the sweep
# writes frames and run.json only); a file of the user's stays.
mixed = os.path.join(d, "mixed")
p = run(simscope, *common, "--out-dir", mixed)
c.check(p.returncode == 0 and os.path.exists(os.path.join(mixed, "magnitude.npy")),
        f"an ordinary run first ({p.stderr.strip()[-300:]!r})")
open(os.path.join(mixed, "mine.npy"), "w").write("mine\n")
p = run(simscope, *common, "--image-size", "320x240", "--out-dir", mixed, "--sweep", "k=1:2:2")
c.check(p.returncode == 0, f"then a sweep into its folder ({p.stderr.strip()[-300:]!r})")
left = sorted(f for f in os.listdir(mixed) if os.path.isfile(os.path.join(mixed, f)))
c.check(left == ["mine.npy", "run.json", "sweep.mp4"] or left == ["mine.npy", "run.json"],
        f"only the sweep's files and the user's remain ({left})")
c.done()
