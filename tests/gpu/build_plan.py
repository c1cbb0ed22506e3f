#!/usr/bin/env python3
"""The GPU run's build step, planned from measured costs (tests/gpu/run.sh builds it there).

  build_plan.py record BUILD_DIR [--cpu CPU_TSV] [--out TSV]
      One row per build step of BUILD_DIR's last build (its .ninja_log): the step's output
      (cpython tags normalised) and its seconds: the CPU seconds CPU_TSV gives for it (lines
      "OUTPUT<TAB>SECONDS", tests/gpu/step_time.sh), else its wall time in the log. Record from a
      build with no compiler cache (tests/gpu/build_costs.sh does both), or the costs are a
      cache's, not a compiler's.
  build_plan.py project BUILD_DIR --costs TSV --targets T... [--cores 16] [--reserve S]
                        [--margin 1.4]
      Simulates the build of TARGETS in BUILD_DIR's graph (ninja -t graph) on CORES workers, each
      step taking its recorded seconds (phony steps none), the longest remaining chain first, and
      prints the projected time, the critical path and the work per core. Exit 1 when a step has
      no recorded cost or when the projection x MARGIN exceeds RESERVE seconds.
The costs are this machine's (one core per step); the GPU machine's cores are taken as no faster.
"""
import argparse
import heapq
import re
import subprocess
import sys


def key(path):
    """A step's name in the table: its output, with the Python ABI tag made version-free."""
    return re.sub(r"\.cpython-[0-9]+-[A-Za-z0-9_-]+\.so$", ".cpython.so", path)


def record(args):
    last = {}  # output -> (start, end) of its latest run
    with open(f"{args.build_dir}/.ninja_log") as f:
        header = f.readline()
        if not header.startswith("# ninja log"):
            sys.exit(f"{args.build_dir}/.ninja_log: not a ninja log")
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            start, end, out = int(parts[0]), int(parts[1]), parts[3]
            if not out.startswith("/"):  # the build folder's own steps, not cmake's checks
                last[out] = (start, end)
    cpu = {}
    if args.cpu:
        for line in open(args.cpu):
            out, sec = line.rstrip("\n").split("\t")
            cpu[out] = float(sec)
    rows = sorted((key(o), cpu.get(o, (e - s) / 1000.0)) for o, (s, e) in last.items())
    text = "# output\tseconds (one core; tests/gpu/build_plan.py record)\n" + "".join(
        f"{o}\t{s:.2f}\n" for o, s in rows)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def read_costs(path):
    costs = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        out, sec = line.rstrip("\n").split("\t")[:2]
        costs[out] = float(sec)
    return costs


def graph(build_dir, targets):
    """Steps of ninja's graph of TARGETS: (rule, outputs, inputs) each; order-only inputs count."""
    dot = subprocess.run(["ninja", "-C", build_dir, "-t", "graph", *targets], check=True,
                         capture_output=True, text=True).stdout
    labels, rules = {}, {}
    outs, ins = {}, {}
    simple = []
    for line in dot.splitlines():
        m = re.match(r'"(0x[0-9a-f]+)" \[label="([^"]*)"(, shape=ellipse)?\]$', line)
        if m:
            (rules if m.group(3) else labels)[m.group(1)] = m.group(2)
            continue
        m = re.match(r'"(0x[0-9a-f]+)" -> "(0x[0-9a-f]+)"(?: \[(.*)\])?$', line)
        if not m:
            continue
        a, b, attr = m.group(1), m.group(2), m.group(3) or ""
        if "arrowhead=none" in attr:
            ins.setdefault(b, []).append(a)
        elif attr.startswith('label="'):
            simple.append((attr[8:-1], a, b))  # one input, one output: drawn as one arrow
        else:
            outs.setdefault(a, []).append(b)
    # ninja names only the nodes it visits: an edge's other outputs (a phony's many) may go
    # unnamed, and nothing of TARGETS depends on them.
    steps = []
    for e, rule in rules.items():
        steps.append((rule, [labels[o] for o in outs.get(e, []) if o in labels],
                      [labels[i] for i in ins.get(e, []) if i in labels]))
    for rule, a, b in simple:
        steps.append((rule, [labels[b]], [labels[a]]))
    return steps


def project(args):
    costs = read_costs(args.costs)
    steps = graph(args.build_dir, args.targets)
    producer = {}
    for i, (_, outputs, _) in enumerate(steps):
        for o in outputs:
            producer[o] = i
    cost = []
    missing = []
    for rule, outputs, _ in steps:
        if rule == "phony":
            cost.append(0.0)
            continue
        c = [costs[key(o)] for o in outputs if key(o) in costs]
        if not c:
            missing.append(f"{outputs[0] if outputs else '?'} ({rule})")
        cost.append(max(c) if c else 0.0)
    if missing:
        print(f"FAIL: {len(missing)} build steps have no cost in {args.costs} (re-record it: "
              "tests/gpu/build_costs.sh):")
        for m in sorted(missing)[:20]:
            print("  " + m)
        return 1
    deps = [sorted({producer[i] for i in inputs if i in producer}) for _, _, inputs in steps]
    users = [[] for _ in steps]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    # Longest chain from each step to the end (its priority), in reverse topological order.
    order, seen = [], [False] * len(steps)
    for s in range(len(steps)):
        stack = [(s, False)]
        while stack:
            n, done = stack.pop()
            if done:
                order.append(n)
                continue
            if seen[n]:
                continue
            seen[n] = True
            stack.append((n, True))
            stack.extend((d, False) for d in deps[n] if not seen[d])
    tail = [0.0] * len(steps)
    for n in reversed(order):
        tail[n] = cost[n] + max((tail[u] for u in users[n]), default=0.0)
    critical = max(tail, default=0.0)
    # List scheduling on CORES workers.
    waiting = [len(d) for d in deps]
    ready = [(-tail[i], i) for i in range(len(steps)) if waiting[i] == 0]
    heapq.heapify(ready)
    running = []  # (end time, step)
    now, free = 0.0, args.cores
    finished = 0
    while finished < len(steps):
        while ready and free > 0:
            _, i = heapq.heappop(ready)
            heapq.heappush(running, (now + cost[i], i))
            free -= 1
        now, i = heapq.heappop(running)
        free += 1
        finished += 1
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, (-tail[u], u))
    work = sum(cost)
    compiled = sum(1 for (r, _, _), c in zip(steps, cost) if r != "phony")
    longest = sorted(((c, o[0]) for (r, o, _), c in zip(steps, cost) if r != "phony"), reverse=True)[:5]
    print(f"build plan: {compiled} steps, {work:.0f} s of work on one core; at {args.cores} cores "
          f"{now:.0f} s projected (critical path {critical:.0f} s, work / cores {work / args.cores:.0f} s)")
    print("longest steps: " + ", ".join(f"{o} {c:.0f} s" for c, o in longest))
    if args.reserve is not None:
        need = now * args.margin
        verdict = "fits" if need <= args.reserve else "does NOT fit"
        print(f"projected x {args.margin} = {need:.0f} s {verdict} the build reserve of {args.reserve} s")
        if need > args.reserve:
            return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("build_dir")
    r.add_argument("--cpu")
    r.add_argument("--out")
    p = sub.add_parser("project")
    p.add_argument("build_dir")
    p.add_argument("--costs", required=True)
    p.add_argument("--targets", nargs="+", required=True)
    p.add_argument("--cores", type=int, default=16)
    p.add_argument("--reserve", type=float)
    p.add_argument("--margin", type=float, default=1.4)
    a = ap.parse_args()
    if a.cmd == "record":
        record(a)
        return 0
    return project(a)


if __name__ == "__main__":
    sys.exit(main())
