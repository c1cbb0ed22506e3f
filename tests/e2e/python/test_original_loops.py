"""app/python/examples/original_loops.py (issue 42): each original question's loop beside its
simscope call, run at small sizes; the example itself fails where a loop and its call disagree
(field 1e-6 relative in float32, lsq 1e-10, oscillators 1e-12 relative over the same steps).
docs/python.md's loops ("Your code -> simscope") are the example's, as printed."""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
EXAMPLE = os.path.join(ROOT, "app", "python", "examples", "original_loops.py")


def doc_loops():
    """The ```python blocks of docs/python.md's "Your code -> simscope" that are loops (not calls:
    those start with an import and run in test_readme_examples)."""
    text = open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8").read()
    section = text[text.index("## Your code -> simscope"):]
    end = section.find("\n## ", 1)
    section = section if end < 0 else section[:end]
    blocks = re.findall(r"^```python\n(.*?)^```", section, flags=re.S | re.M)
    return [b for b in blocks if not b.lstrip().startswith(("import ", "from "))]


def test_doc_loops_are_the_examples():
    source = open(EXAMPLE, encoding="utf-8").read()
    loops = doc_loops()
    assert len(loops) == 3, loops  # field, lsq, oscillators
    for loop in loops:
        # Each run of lines between blank lines appears in the example at one indentation.
        for part in [p for p in re.split(r"\n\s*\n", loop) if p.strip()]:
            lines = part.splitlines()
            assert any("\n".join(indent + line if line else line for line in lines) in source
                       for indent in ("", "    ", "        ")), part


def test_loops_and_calls_agree():
    env = dict(os.environ)
    p = subprocess.run([sys.executable, EXAMPLE, "--small"], capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    lines = p.stdout.splitlines()
    for name in ("field", "lsq", "lsq  ", "osc"):
        assert any(line.startswith(name) for line in lines), p.stdout
    assert "DISAGREE" not in p.stdout
