"""The Python examples of README.md and docs/ run as printed: every ```python block that starts
with an import (the others are excerpts beside a loop, e.g. "the three original questions")."""
import glob
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
PAGES = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def blocks():
    found = []
    for page in PAGES:
        text = open(page, encoding="utf-8").read()
        name = os.path.relpath(page, ROOT)
        for i, b in enumerate(re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)):
            if b.lstrip().startswith(("import ", "from ")):
                found.append((f"{name} python block {i}", b))
    return found


def test_there_are_examples():
    assert len(blocks()) >= 1


@pytest.mark.parametrize("index", range(len(blocks())))
def test_example_runs_as_printed(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    name, code = blocks()[index]
    exec(compile(code, name, "exec"), {"__name__": "__readme__"})
