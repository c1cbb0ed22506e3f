"""The portable build's CPU kernels beside a -march=native build's, interleaved.

Usage: isa_levels.py PORTABLE_BENCH NATIVE_BENCH [--runs 5] [--levels v4,v3,v2]

PORTABLE_BENCH is simscope-bench of a default build (SIMSCOPE_NATIVE=OFF), NATIVE_BENCH that of
a -DSIMSCOPE_NATIVE=ON build. For each case below, the runs go round-robin: native, then the
portable build at each level (SIMSCOPE_ISA=...; the first is the CPU's own), RUNS times, so that
a change of the machine's load touches every column alike. Prints, per case, the median of each
column's figure and the portable default's ratio to native, then one JSON line per case.
The machine's CPU model and load go in the header: name them with every figure (NOTES.md).
"""
import argparse
import json
import os
import statistics
import subprocess

# (name, figure key in the bench's JSON, arguments). Lower is better for every figure.
CASES = [
    ("field direct fp32, 2e5 sources x 8192 targets", "seconds",
     ["field", "--backend", "cpu", "--sources", "200000", "--targets", "8192", "--repeat", "3",
      "--check", "8"]),
    ("field direct fp64, 1e5 sources x 4096 targets", "seconds",
     ["field", "--backend", "cpu", "--precision", "fp64", "--sources", "100000", "--targets",
      "4096", "--repeat", "3", "--check", "8"]),
    ("field tree 1e-5, 1e6 sources, plane z = 0 (eval)", "eval_seconds",
     ["field", "--backend", "cpu", "--method", "tree", "--sources", "1000000", "--targets",
      "40000", "--plane-offset", "0", "--repeat", "3", "--check", "8", "--direct-targets", "16"]),
    ("lsq auto fp64, 300 x 300 px, M 100, N 50", "seconds",
     ["lsq", "--backend", "cpu", "--height", "300", "--width", "300", "--repeat", "3",
      "--check", "8"]),
    ("lsq auto fp32, 300 x 300 px, M 100, N 50", "seconds",
     ["lsq", "--backend", "cpu", "--precision", "fp32", "--height", "300", "--width", "300",
      "--repeat", "3", "--check", "8"]),
    ("oscillators ring lanes fp64, 256 x 200 nodes, 2000 steps", "seconds",
     ["oscillators", "--backend", "cpu", "--nodes", "200", "--members", "256", "--steps",
      "2000", "--topology", "ring", "--k", "4", "--repeat", "3"]),
    ("oscillators Watts-Strogatz fp64, 256 x 200 nodes, 2000 steps", "seconds",
     ["oscillators", "--backend", "cpu", "--nodes", "200", "--members", "256", "--steps",
      "2000", "--topology", "watts_strogatz", "--k", "4", "--p", "0.1", "--repeat", "3"]),
]


def cpu_model():
    info = {}
    for line in open("/proc/cpuinfo"):
        k, _, v = line.partition(":")
        info.setdefault(k.strip(), v.strip())
    return (f"{info.get('model name', 'unknown CPU')} (family {info.get('cpu family', '?')}, "
            f"model {info.get('model', '?')})")


def run(bench, args, level):
    env = dict(os.environ)
    env.pop("SIMSCOPE_ISA", None)
    if level:
        env["SIMSCOPE_ISA"] = level
    p = subprocess.run([bench, *args], capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"{bench} {' '.join(args)} (SIMSCOPE_ISA={level}): {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("portable")
    ap.add_argument("native")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--levels", default="", help="portable levels besides the CPU's own, "
                    "e.g. v3,v2")
    ap.add_argument("--cases", default="", help="indices of CASES to run, e.g. 0,3")
    a = ap.parse_args()
    levels = [""] + [l for l in a.levels.split(",") if l]
    cases = [CASES[int(i)] for i in a.cases.split(",")] if a.cases else CASES
    print(f"# {cpu_model()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f} at the start; "
          f"{a.runs} interleaved runs per column, medians")
    head = ["native"] + [f"portable {l or 'default'}" for l in levels]
    print("| case | figure | " + " | ".join(head) + " | default / native |")
    print("|" + "---|" * (len(head) + 3))
    lines = []
    for name, key, args in cases:
        cols = {h: [] for h in head}
        for _ in range(a.runs):
            cols["native"].append(run(a.native, args, "")[key])
            for l in levels:
                cols[f"portable {l or 'default'}"].append(run(a.portable, args, l)[key])
        med = {h: statistics.median(v) for h, v in cols.items()}
        ratio = med["portable default"] / med["native"]
        print(f"| {name} | {key} | " + " | ".join(f"{med[h]:.4g}" for h in head) +
              f" | {ratio:.3f} |", flush=True)
        lines.append(json.dumps({"case": name, "figure": key, "runs": cols, "ratio": ratio}))
    print(f"# load {os.getloadavg()[0]:.2f} at the end")
    for l in lines:
        print(l)


if __name__ == "__main__":
    main()
