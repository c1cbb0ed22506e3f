"""The examples of README.md and docs/ run as printed, each within BLOCK_SECONDS: every ```python
block that starts with an import (the others are excerpts beside a loop, e.g. "the three original
questions"), in this one process, and every ```sh block whose first command runs simscope, with
bash in a fresh folder: `build/` is this build folder (SIMSCOPE_EXE's), `simscope` on PATH its
program; the input files a block names as the user's own (charges.npy, cube.npy, A.npy) are made
there first, small; a block that opens the window runs under its own Xvfb
(tests/e2e/xvfb_exec.py) and each window command without --screenshot gets `--frames 5` (it
quits 5 frames after its first full result instead of waiting for the user). A block that cannot
run here is marked on the line before it with `<!-- notest: REASON -->` (mpirun, Slurm, a GPU,
the seeds' full sizes); it is reported as skipped with its page, line and reason.
The 10 s are CPU seconds of every thread and child process (Python's process time; the
children's user + system time): a bound on what the reader waits on a quiet machine that other
work on a shared one does not stretch (SIMSCOPE_TEST_SLOWDOWN scales it, as for the sanitizers)."""
import glob
import os
import re
import resource
import subprocess
import sys
import time

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PAGES = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
SLOWDOWN = float(os.environ.get("SIMSCOPE_TEST_SLOWDOWN", "1") or 1)
BLOCK_SECONDS = 10 * SLOWDOWN  # CPU seconds: what a reader waits for an example, at most
WALL_LIMIT = 120 * SLOWDOWN  # a hung block fails here
NOTEST = re.compile(r"^<!--\s*notest:(.*?)-->\s*$")
SIMSCOPE_WORD = re.compile(r"(?:^|[\s/])simscope(?=\s|$)")
XVFB_EXEC = os.path.join(ROOT, "tests", "e2e", "xvfb_exec.py")


def commands(code):
    """The block's command lines: continuations joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", code)
    out = []
    for line in joined.split("\n"):
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line:
            out.append(line)
    return out


def first_command(code):
    """The first command line, past `export` and VAR=value assignments."""
    for line in commands(code):
        words = [w for w in line.split() if not re.match(r"^[A-Za-z_]\w*=", w)]
        if words and words[0] != "export":
            return " ".join(words)
    return ""


def blocks():
    """[(name, lang, code, notest reason or None)] of the blocks in scope, in page order."""
    found = []
    for page in PAGES:
        text = open(page, encoding="utf-8").read()
        name = os.path.relpath(page, ROOT)
        for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M):
            lang, code = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            before = [l for l in text[:m.start()].split("\n")[:-1] if l.strip()][-1:]
            mark = NOTEST.match(before[0]) if before else None
            reason = mark.group(1).strip() if mark else None
            if lang == "python" and code.lstrip().startswith(("import ", "from ")):
                found.append((f"{name}:{line} (python)", "python", code, reason))
            elif lang == "sh" and SIMSCOPE_WORD.search(first_command(code)):
                found.append((f"{name}:{line} (sh)", "sh", code, reason))
            elif reason is not None:  # marked, though not in scope: listed with its reason
                found.append((f"{name}:{line} ({lang or 'text'})", lang, code, reason))
    return found


BLOCKS = blocks()


def test_there_are_examples():
    langs = [b[1] for b in BLOCKS if b[3] is None]
    assert langs.count("python") >= 5 and langs.count("sh") >= 5, langs


def test_every_mark_has_a_reason_and_a_block():
    for page in PAGES:
        lines = open(page, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            m = NOTEST.match(line)
            if m:
                where = f"{os.path.relpath(page, ROOT)}:{i + 1}"
                assert m.group(1).strip(), f"{where}: a notest mark without its reason"
                nxt = next((l for l in lines[i + 1:] if l.strip()), "")
                assert nxt.startswith("```"), f"{where}: a notest mark not before a code block"


def fixtures(code, d):
    """The user's own files that a command block names, made small in d."""
    rng = np.random.default_rng(0)
    if "charges.npy" in code:
        np.save(os.path.join(d, "charges.npy"),
                np.c_[rng.uniform(-1, 1, (2000, 3)), rng.uniform(0.5, 1.5, 2000)])
    if "cube.npy" in code or "A.npy" in code:
        A = rng.standard_normal((40, 12))
        cube = np.einsum("mn,nhw->mhw", A, rng.standard_normal((12, 64, 96)))
        cube[rng.random(cube.shape) < 0.2] = np.nan
        np.save(os.path.join(d, "A.npy"), A)
        np.save(os.path.join(d, "cube.npy"), cube)


def shell_script(code, build):
    """The block as bash runs it here: `build/` is this build folder; a window command without
    --screenshot quits 5 frames after its first full result."""
    lines = []
    for line in commands(code):
        line = re.sub(r"(?<![\w/.-])build/", build + "/", line)
        words = line.split()
        runs_simscope = any(re.search(r"(^|/)simscope$", w) for w in words)
        headless = {"--headless", "--list-params", "--help", "--version", "--screenshot"}
        if runs_simscope and not headless & set(words):
            line += " --frames 5"
        lines.append(line)
    return "set -e\n" + "\n".join(lines) + "\n"


def opens_window(script):
    return "--frames 5" in script or "--screenshot" in script


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=[b[0] for b in BLOCKS])
def test_example_runs_as_printed(index, tmp_path, monkeypatch):
    name, lang, code, reason = BLOCKS[index]
    if reason is not None:
        pytest.skip(f"{name}: {reason}")
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    start, wall = time.process_time(), time.monotonic()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    if lang == "python":
        exec(compile(code, name, "exec"), {"__name__": "__readme__"})
    else:
        exe = os.environ.get("SIMSCOPE_EXE")
        if not exe:
            pytest.fail("SIMSCOPE_EXE is not set (ctest sets it to the simscope program)")
        build = os.path.dirname(os.path.dirname(os.path.abspath(exe)))
        fixtures(code, str(tmp_path))
        bindir = tmp_path / "bin"
        bindir.mkdir()
        os.symlink(exe, bindir / "simscope")
        env = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path),
                   PATH=f"{bindir}:{os.environ.get('PATH', '')}")
        script = shell_script(code, build)
        cmd = ["bash", "-c", script]
        if opens_window(script):
            cmd = [sys.executable, XVFB_EXEC, "1280x800"] + cmd
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path,
                               timeout=WALL_LIMIT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{name}: still running after {WALL_LIMIT:.0f} s:\n{script}")
        assert p.returncode == 0, (f"{name}: exit status {p.returncode}\n{script}\n"
                                   f"{p.stderr[-2000:]}")
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (time.process_time() - start + now.ru_utime - children.ru_utime +
               now.ru_stime - children.ru_stime)
    print(f"{name}: {seconds:.2f} CPU s ({time.monotonic() - wall:.2f} s wall)")
    assert seconds <= BLOCK_SECONDS, (f"{name}: {seconds:.1f} CPU seconds, above "
                                      f"{BLOCK_SECONDS:.0f}: make the example smaller")


# docs/index.md's tasks: each links to a section whose first example in scope does the task
# (matches the pattern), run above, or is marked with a reason naming the test that runs it.
TASKS = {
    "cli.md#exploring-a-result-probes-profiles-comparisons-sweeps":
        (r"--sweep plane\.offset=", None),
    "python.md#the-module": (r"simscope\.lsq\([^)]*mask=", None),
    "clusters.md#clusters-slurm": (r"sbatch .*examples/slurm/study\.sbatch", "e2e_slurm"),
    "install.md#installing": (r"apt install \./dist/simscope_", "install.deb"),
    "lsq.md#the-lsq-workload-per-pixel-least-squares-with-gaps":
        (r"--set data\.file=\S+\.npy --set design\.file=\S+\.npy", None),
}


def slug(heading):
    s = re.sub(r"`", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", s).replace(" ", "-")


def test_index_tasks_lead_to_their_examples():
    docs = os.path.join(ROOT, "docs")
    index = open(os.path.join(docs, "index.md"), encoding="utf-8").read()
    tasks = re.search(r"^## Tasks\n(.*?)^## ", index, flags=re.S | re.M)
    assert tasks, "docs/index.md has no ## Tasks section"
    links = re.findall(r"^- \[[^\]]+\]\(([^)]+)\)", tasks.group(1), flags=re.M)
    assert sorted(links) == sorted(TASKS), f"docs/index.md's tasks {links}, expected {list(TASKS)}"
    for link, (pattern, runner) in TASKS.items():
        page, anchor = link.split("#")
        text = open(os.path.join(docs, page), encoding="utf-8").read()
        fenced = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text,
                        flags=re.S | re.M)
        heads = [(fenced.count("\n", 0, m.start()) + 1, len(m.group(1)), slug(m.group(2)))
                 for m in re.finditer(r"^(#{1,6}) +(.+?) *$", fenced, flags=re.M)]
        at = [(n, lvl) for n, lvl, s in heads if s == anchor]
        assert at, f"{link}: no such heading"
        start, level = at[0]
        end = min([n for n, lvl, _ in heads if n > start and lvl <= level] + [1 << 30])
        inside = [b for b in BLOCKS if b[0].startswith(f"docs/{page}:")
                  and start < int(b[0].split(":")[1].split()[0]) < end]
        assert inside, f"{link}: no example in the section"
        name, _, code, reason = inside[0]
        assert re.search(pattern, code), f"{link}: its first example {name} does not do it"
        if runner is None:
            assert reason is None, f"{link}: its first example {name} is not run ({reason})"
        else:
            assert reason and runner in reason, f"{link}: {name} should name {runner} as its test"
