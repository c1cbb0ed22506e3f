"""Keyword arguments -> the schema's (dotted name, text) settings, checked in C++ by the same
code as ``simscope --set NAME=VALUE`` (app/run/params/schema.cpp), so the messages are the CLI's,
re-spelled for Python (python_messages: the keywords typed, backend="cuda")."""

import contextlib
import numbers
import os
import re

from . import _core

_KEYWORDS = {}  # workload -> {keyword: dotted name}
_ALSO = {}  # workload -> {dotted name: other words for it}


def keywords(workload):
    """{keyword: schema name} of `workload`: each name with '.' replaced by '_'."""
    if workload not in _KEYWORDS:
        table = {}
        also = {}
        for spec in _core.schema(workload):
            table[spec["keyword"]] = spec["name"]
            also[spec["name"]] = list(spec["also"])
        _KEYWORDS[workload] = table
        _ALSO[workload] = also
    return _KEYWORDS[workload]


def scalar(value):
    """`value` as a Python number where it is one number of an array library: a 0-d numpy array,
    a numpy scalar, a 0-d torch tensor (requires_grad or not: a parameter is a number, not part
    of a graph), anything 0-d with .item(); other values unchanged."""
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        return value.item()
    return value


def text(value):
    """A Python value as --set would spell it: bools true/false, floats exactly (repr), paths as
    given, None as the empty path; a 0-d array or tensor as its number (scalar)."""
    value = scalar(value)
    if value is None:
        return ""
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


# Keyword spellings of schema names that Python cannot take as keywords, per workload: every
# call that takes a workload's parameters as keywords (run, lsq, show, ...) accepts them.
KEYWORD_ALIASES = {"lsq": {"lam": "lambda"}}


def settings(workload, params=None, aliases=None, **kwargs):
    """The (name, text) list for `workload` from a dict of dotted names (`params`) and keyword
    arguments (dots as '_'; `aliases` maps other keyword spellings to schema names, e.g. lsq's
    lam for lambda, a Python keyword); later entries win. Unknown dotted names are passed
    through, so that the schema's check raises the CLI's message ("unknown parameter 'x' for
    workload 'w' (known: a.b, ...)"); an unknown keyword raises the same message with the
    keyword spellings as the known names, after the nearest ones ("did you mean 'k'?", the CLI's
    rule) (ValueError)."""
    if aliases is None:
        aliases = KEYWORD_ALIASES.get(workload)
    spelled = {name: alias for alias, name in (aliases or {}).items()}
    table = {spelled.get(n, k): n for k, n in keywords(workload).items()}  # schema order
    out = []
    for name, value in (params or {}).items():
        out.append((str(name), text(value)))
    for key, value in kwargs.items():
        if key not in table and key not in table.values():
            also = _ALSO[workload]
            # The schema's own name is one more word for a keyword spelled otherwise (lam).
            hint = _core.did_you_mean(key, [(k, also.get(n, []) + ([n] if n != k else []))
                                            for k, n in table.items()])
            raise ValueError("unknown parameter '%s' for workload '%s'%s (known: %s)"
                             % (key, workload, " (%s)" % hint if hint else "", ", ".join(table)))
        out.append((table.get(key, key), text(value)))
    return out


def _spelling(workload, params=None, aliases=None, arrays=None, typed=False):
    """({schema name: Python spelling} of the names that differ, {names kept as they are}): the
    keyword (dots as '_', or its alias, e.g. lsq's lam for lambda), or the array argument that
    replaced a file parameter (`arrays`, e.g. {"init.file": "initial"}). Names given dotted in
    `params` are kept, and all are when the caller gave only dotted names (`typed` False: no
    keyword argument)."""
    dotted = {str(n) for n in (params or {})}
    if aliases is None:
        aliases = KEYWORD_ALIASES.get(workload)
    alias = {name: a for a, name in (aliases or {}).items()}
    keep = bool(dotted) and not typed
    out, kept = {}, set()
    for key, name in keywords(workload).items():
        if (keep or name in dotted) and name not in (arrays or {}):
            kept.add(name)
            continue
        new = (arrays or {}).get(name) or alias.get(name, key)
        if new != name:
            out[name] = new
    return out, kept


def python_message(message, workload, params=None, aliases=None, arrays=None, typed=True):
    """`message` (the CLI's words, compute/ and app/run/ write them) as a Python caller spells
    it: each schema name as the keyword (see _spelling), an enum setting NAME=VALUE as
    NAME="VALUE", and the command line's ``--backend cuda`` / ``backend=cuda`` as
    ``backend="cuda"``. A path or a longer dotted word containing a name is left alone."""
    names, kept = _spelling(workload, params, aliases, arrays, typed)
    if names:
        pattern = r"(?<![\w./-])(%s)(?![\w-]|\.\w)" % "|".join(
            re.escape(n) for n in sorted(names, key=len, reverse=True))
        message = re.sub(pattern, lambda m: names[m.group(1)], message)
    choices = {"backend": ("auto", "cpu", "cuda")}
    for spec in _core.schema(workload):
        if spec["choices"] and spec["name"] not in kept:  # a kept name: NAME=VALUE as given
            choices[names.get(spec["name"], spec["name"])] = tuple(spec["choices"])
    message = re.sub(r"--backend (auto|cpu|cuda)\b", r'backend="\1"', message)
    message = re.sub(r"--backend\b", "backend", message)

    def quoted(m):
        key, value = m.group(1), m.group(2)
        return '%s="%s"' % (key, value) if value in choices.get(key, ()) else m.group(0)

    return re.sub(r"(?<![\w.-])([A-Za-z_][\w.]*)=([\w.+-]+)\b", quoted, message)


@contextlib.contextmanager
def python_messages(workload, params=None, aliases=None, arrays=None, typed=True):
    """Re-raises a ValueError / RuntimeError of the block with python_message's words (the same
    type; the CLI's own messages are unchanged). `typed`: the caller gave keyword arguments."""
    try:
        yield
    except (ValueError, RuntimeError) as e:
        if type(e) not in (ValueError, RuntimeError):
            raise
        text = python_message(str(e), workload, params, aliases, arrays, typed)
        if text == str(e):
            raise
        raise type(e)(text) from None


def python_warnings(d, workload, params=None, aliases=None, arrays=None, typed=True):
    """The result dict `d` of simscope._core with its warnings (the CLI's words, e.g.
    "sources are given as an array, so sources.count is not used") spelled as the caller typed
    them (python_message: "sources_count"); returns `d`."""
    d["warnings"] = [python_message(w, workload, params, aliases, arrays, typed)
                     for w in d["warnings"]]
    return d
