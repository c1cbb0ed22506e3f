"""End to end: a long study's projection (issue 45, item 5).

- `--estimate` prints one line with the study's K, N, steps, work = K N steps, the measured rate
  (> 0) and the projected time = work / rate, writes nothing and does not run the study: a study
  of 10^5 members x 10^6 steps (about 10^13 oscillator-steps, hours on any CPU) returns at once
  with exit 0 and no output folder. It is refused for another workload and without --headless.
- The first progress line of a study names the rate in osc-steps/s, the ETA and the whole study's
  projected time: ETA = work (1 - fraction) / rate and whole = work / rate, from the printed
  numbers (work = K N steps). The study is then stopped with SIGINT (exit 130).
No timing assertion: only formats and the arithmetic of the printed numbers.
Usage: e2e_projection.py SIMSCOPE"""
import math
import os
import re
import signal
import subprocess
import sys

from simscope_test_util import Checker, run, scratch, wait_signal_caught

simscope = os.path.abspath(sys.argv[1])
c = Checker()
d = scratch("e2e_projection")

# --estimate of a study far too long to run here.
out = os.path.join(d, "estimate")
K, N, S = 100000, 100, 1000000
p = run(simscope, "--headless", "-w", "oscillators", "--backend", "cpu", "--set",
        f"ensemble.size={K}", "--set", f"network.nodes={N}", "--set", f"integrator.steps={S}",
        "--out-dir", out, "--estimate", timeout=120)
c.check(p.returncode == 0, f"--estimate: exit 0 ({p.stderr.strip()[-300:]})")
m = re.search(r"^simscope: estimate: (\d+) members x (\d+) nodes x (\d+) steps = (\S+) osc-steps "
              r"at (\S+) osc-steps/s \(timed (\S+) s: (\d+) members x (\d+) steps on cpu\): about "
              r"(\S+) s \((\S+) h\); the study was not run$", p.stdout.strip(), re.M)
c.check(m is not None and len(p.stdout.strip().splitlines()) == 1,
        f"--estimate: one line of the documented form ({p.stdout.strip()!r})")
if m:
    k, n, s = int(m[1]), int(m[2]), int(m[3])
    work, rate, timed, members, steps = float(m[4]), float(m[5]), float(m[6]), int(m[7]), int(m[8])
    projected, hours = float(m[9]), float(m[10])
    c.check((k, n, s) == (K, N, S), f"--estimate: the study's K, N, steps ({k}, {n}, {s})")
    c.check(abs(work - K * N * S) <= 1e-5 * K * N * S, f"--estimate: work = K N steps ({work})")
    c.check(rate > 0 and timed > 0 and 1 <= members <= K and steps >= 1,
            f"--estimate: a positive rate from a timed stretch ({rate}, {timed} s, {members} x "
            f"{steps})")
    c.check(abs(projected - work / rate) <= 1e-5 * projected,
            f"--estimate: projected = work / rate ({projected} vs {work / rate})")
    # Hours printed to 0.01 h.
    c.check(abs(hours - projected / 3600) <= 0.005 + 1e-9, f"--estimate: hours ({hours})")
c.check(not os.path.exists(out), "--estimate: no output folder, the study was not run")
p = run(simscope, "--headless", "-w", "field", "--backend", "cpu", "--out-dir", out, "--estimate")
c.check(p.returncode != 0 and "--estimate projects an oscillators study" in p.stderr,
        f"--estimate refused for the field ({p.stderr.strip()[-200:]})")
p = run(simscope, "-w", "oscillators", "--estimate")
c.check(p.returncode == 2 and "--estimate is for a headless study" in p.stderr,
        f"--estimate refused without --headless ({p.stderr.strip()[-200:]})")

# The first progress line of a study (stderr is a pipe: the first line after 5 s).
K, N, S = 2000, 100, 100000
cmd = [simscope, "--headless", "--no-image", "-w", "oscillators", "--backend", "cpu", "--set",
       f"ensemble.size={K}", "--set", f"network.nodes={N}", "--set", f"integrator.steps={S}",
       "--out-dir", os.path.join(d, "study")]
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = ""
try:
    for raw in proc.stderr:
        if raw.startswith("oscillators:"):
            line = raw.strip()
            break
finally:
    wait_signal_caught(proc.pid, signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
m = re.fullmatch(r"oscillators: +(\d+)%  elapsed (\S+) s  (\S+) osc-steps/s  ETA (\S+) s  "
                 r"\(whole (\S+) s\)", line)
c.check(m is not None, f"first progress line names the rate, ETA and whole study ({line!r})")
if m:
    pct, rate, eta, whole = int(m[1]), float(m[3]), float(m[4]), float(m[5])
    work = K * N * S
    c.check(rate > 0, f"progress: rate > 0 ({rate})")
    # whole = work / rate, the rate printed to 3 significant digits (half a unit of the third
    # digit either way) and whole to 0.1 s.
    unit = 0.5 * 10 ** (math.floor(math.log10(rate)) - 2)
    lo_w, hi_w = work / (rate + unit), work / (rate - unit)
    c.check(lo_w - 0.05 - 1e-9 <= whole <= hi_w + 0.05 + 1e-9,
            f"progress: whole = work / rate ({whole} in [{lo_w:.1f}, {hi_w:.1f}])")
    # ETA = work (1 - f) / rate, f printed as a whole percent.
    lo, hi = whole * (1 - (pct + 0.5) / 100), whole * (1 - (pct - 0.5) / 100)
    c.check(lo - 0.1 - 5e-3 * whole <= eta <= hi + 0.1 + 5e-3 * whole,
            f"progress: ETA = work (1 - f) / rate ({eta} in [{lo:.1f}, {hi:.1f}])")
c.check(proc.returncode == 130, f"the study stopped by SIGINT (exit {proc.returncode})")
c.done()
