"""Headless --sweep NAME=START:STOP:FRAMES: DIR/frames/0000.png ... at --image-size, each with its
frame's parameters; DIR/run.json listing every frame; DIR/sweep.mp4 (ffprobe: frame count and
size). The field is linear in k, so each frame's colour range (from its data) scales with k.
Int parameters are rounded. Bad sweeps are refused with a message and leave no frames.
Usage: e2e_sweep.py SIMSCOPE"""
import json
import os
import re
import shutil
import subprocess
import sys

from gui_util import png_size_and_text
from simscope_test_util import Checker, run, scratch

simscope = sys.argv[1]
c = Checker()
d = scratch("e2e_sweep")
common = ["--headless", "--backend", "cpu", "--set", "grid.size=24", "--set", "sources.count=20",
          "--set", "eps=0.05"]

out = os.path.join(d, "k")
p = run(simscope, *common, "--image-size", "160x128", "--out-dir", out, "--sweep", "k=1:3:3")
c.check(p.returncode == 0, f"sweep of k runs ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    files = [os.path.join(out, "frames", f"{f:04d}.png") for f in range(3)]
    c.check(all(os.path.exists(f) for f in files) and
            sorted(os.listdir(os.path.join(out, "frames"))) == ["0000.png", "0001.png", "0002.png"],
            "frames/0000.png ... 0002.png")
    ranges = []
    for f, k in zip(files, [1, 2, 3]):
        (w, h), text = png_size_and_text(f)
        c.check((w, h) == (160, 128), f"{os.path.basename(f)}: 160 x 128 ({w} x {h})")
        got = dict(re.findall(r"(?:^|\s)(k)=(\S+)", text.get("simscope.params", "")))
        c.check(float(got.get("k", "nan")) == k, f"{os.path.basename(f)}: k = {k} ({got})")
        ranges.append(json.loads(text.get("simscope.view", "{}")).get("range", [0, 0]))
    c.check(all(abs(ranges[i][1] / ranges[0][1] - (i + 1)) < 1e-5 and
                abs(ranges[i][0] / ranges[0][0] - (i + 1)) < 1e-5 for i in range(3)),
            f"each frame's range scales with k ({ranges})")
    m = json.load(open(os.path.join(out, "run.json")))
    fr = m.get("frames", [])
    c.check(m.get("sweep", {}).get("param") == "k" and m["sweep"].get("frames") == 3 and
            [x["params"]["k"] for x in fr] == [1, 2, 3] and [x["value"] for x in fr] == [1, 2, 3]
            and [x["file"] for x in fr] == [f"frames/{f:04d}.png" for f in range(3)],
            "run.json lists every frame's parameters")
    c.check(all(x["params"]["grid.size"] == 24 for x in fr), "the other parameters as set")
    video = os.path.join(out, "sweep.mp4")
    if shutil.which("ffmpeg") and shutil.which("ffprobe"):
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                                "-show_entries", "stream=nb_read_frames,width,height", "-of",
                                "csv=p=0", video], capture_output=True, text=True)
        c.check(probe.stdout.strip() == "160,128,3", f"sweep.mp4: 3 frames of 160 x 128 "
                f"({probe.stdout.strip()!r} {probe.stderr.strip()[-200:]!r})")
        c.check(m["sweep"].get("video") == "sweep.mp4", "run.json names the video")
    else:
        c.check(not os.path.exists(video) and "ffmpeg not found" in p.stderr,
                "without ffmpeg: no video, and a warning says so")

out = os.path.join(d, "int")
p = run(simscope, *common, "--image-size", "96x80", "--out-dir", out, "--sweep",
        "grid.size=16:33:3")
c.check(p.returncode == 0, f"sweep of an int parameter ({p.stderr.strip()[-300:]})")
if p.returncode == 0:
    fr = json.load(open(os.path.join(out, "run.json")))["frames"]
    c.check([x["params"]["grid.size"] for x in fr] == [16, 24, 33] or
            [x["params"]["grid.size"] for x in fr] == [16, 25, 33],
            f"rounded to integers ({[x['params']['grid.size'] for x in fr]})")

for arg, code, words in [("k=1:2", 2, "--sweep expects NAME=START:STOP:FRAMES"),
                         ("k=1:2:1", 2, "--sweep expects"),
                         ("plane=1:2:3", 2, "--sweep: parameter plane is enum, not a number"),
                         ("nosuch=1:2:3", 2, "unknown parameter 'nosuch'"),
                         ("grid.size=1:10:3", 2, "--sweep start 1: parameter grid.size"),
                         ("grid.size=8:5000:3", 2, "--sweep stop 5000: parameter grid.size")]:
    bad = os.path.join(d, "bad")
    p = run(simscope, *common, "--out-dir", bad, "--sweep", arg)
    c.check(p.returncode == code and words in p.stderr and len(p.stderr.strip().splitlines()) == 1,
            f"--sweep {arg}: exit {p.returncode}, {p.stderr.strip()!r}")
    c.check(not os.path.exists(os.path.join(bad, "frames", "0000.png")), f"{arg}: no frames")
# A file called frames in --out-dir: one line naming the folder; the file stays, nothing is
# written and the out-dir stays (this sweep did not make it).
blocked = os.path.join(d, "blocked")
os.makedirs(blocked, exist_ok=True)
open(os.path.join(blocked, "frames"), "w").write("mine")
p = run(simscope, *common, "--out-dir", blocked, "--sweep", "k=1:2:2")
c.check(p.returncode == 1 and p.stderr.strip() ==
        f"simscope: error: cannot create the folder {blocked}/frames",
        f"frames/ blocked by a file: exit {p.returncode}, {p.stderr.strip()!r}")
c.check(sorted(os.listdir(blocked)) == ["frames"] and
        open(os.path.join(blocked, "frames")).read() == "mine", "the file called frames is kept")
p = run(simscope, "--sweep", "k=1:2:3", "--pin-set", "k=2")
c.check(p.returncode == 2 and "does not combine" in p.stderr, f"with --pin-set: {p.stderr.strip()!r}")

# SIGINT / SIGTERM during a sweep: exit 130 / 143 with one line, and no frame is left.
import signal
import time
for sig, code, name in [(signal.SIGINT, 130, "SIGINT"), (signal.SIGTERM, 143, "SIGTERM")]:
    out = os.path.join(d, f"stopped_{name}")
    proc = subprocess.Popen([simscope, "--headless", "--backend", "cpu", "--out-dir", out,
                             "--set", "grid.size=200", "--set", "sources.count=20000",
                             "--set", "method=direct", "--image-size", "160x120",
                             "--sweep", "plane.offset=-1:1:200"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60  # until the first frame is written, then the signal
    while time.time() < deadline and not os.path.exists(os.path.join(out, "frames", "0000.png")):
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    frames = os.listdir(os.path.join(out, "frames")) if os.path.isdir(os.path.join(out, "frames")) else []
    c.check(proc.returncode == code and f"interrupted by {name}; no outputs written" in err,
            f"{name} in a sweep: exit {proc.returncode}, {err.strip()[-200:]!r}")
    c.check(not [f for f in frames if f.endswith(".png")] and
            not os.path.exists(os.path.join(out, "run.json")), f"{name}: no frames left ({frames})")
# The caption (top left, on a dark backdrop) and the colorbar's title (top right) never overlap:
# the caption has a strip of its own above the view, at a small and at a large frame size.
from simscope_test_util import read_png  # noqa: E402
import numpy as np  # noqa: E402

for size in ["480x360", "1280x800"]:
    out = os.path.join(d, "caption_" + size)
    p = run(simscope, *common, "--image-size", size, "--out-dir", out, "--sweep",
            "plane.offset=-1:1:2")
    c.check(p.returncode == 0, f"{size}: sweep runs ({p.stderr.strip()[-300:]})")
    if p.returncode != 0:
        continue
    img = read_png(os.path.join(out, "frames", "0000.png"))[0][:, :, :3].astype(int)
    H, W = img.shape[:2]
    # The backdrop: black at alpha 0.6 over the background (28, 28, 33) -> (11, 11, 13).
    box = np.abs(img - np.array([11, 11, 13])).max(axis=2) <= 2
    ys, xs = np.nonzero(box[: H // 3])
    if ys.size == 0:
        c.check(False, f"{size}: the caption's backdrop is drawn")
        continue
    y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
    white = img.min(axis=2) >= 235
    white[y0:y1 + 1, x0:x1 + 1] = False  # the caption's own text
    ty = np.nonzero(white[: H // 3, W // 2:].any(axis=1))[0]
    c.check(ty.size > 0 and ty.min() > y1,
            f"{size}: the title (rows {ty.min() if ty.size else None}..) lies below the caption "
            f"(rows {y0}..{y1}, columns {x0}..{x1})")
c.done()
