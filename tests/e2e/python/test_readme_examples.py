"""The README's Python examples run as printed: every ```python block of README.md that starts
with an import (the others are excerpts beside a loop, e.g. "the three original questions")."""
import os
import re

import pytest

README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")


def blocks():
    text = open(README, encoding="utf-8").read()
    found = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    return [b for b in found if b.lstrip().startswith(("import ", "from "))]


def test_there_are_examples():
    assert len(blocks()) >= 1


@pytest.mark.parametrize("index", range(len(blocks())))
def test_example_runs_as_printed(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    code = blocks()[index]
    exec(compile(code, f"README.md python block {index}", "exec"), {"__name__": "__readme__"})
