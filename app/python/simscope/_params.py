"""Keyword arguments -> the schema's (dotted name, text) settings, checked in C++ by the same
code as ``simscope --set NAME=VALUE`` (compute/core/params.cpp), so the messages are the CLI's."""

import numbers
import os

from . import _core

_KEYWORDS = {}  # workload -> {keyword: dotted name}


def keywords(workload):
    """{keyword: schema name} of `workload`: each name with '.' replaced by '_'."""
    if workload not in _KEYWORDS:
        table = {}
        for spec in _core.schema(workload):
            table[spec["keyword"]] = spec["name"]
        _KEYWORDS[workload] = table
    return _KEYWORDS[workload]


def text(value):
    """A Python value as --set would spell it: bools true/false, floats exactly (repr), paths as
    given, None as the empty path."""
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


def settings(workload, params=None, aliases=None, **kwargs):
    """The (name, text) list for `workload` from a dict of dotted names (`params`) and keyword
    arguments (dots as '_'; `aliases` maps other keyword spellings to schema names, e.g. lsq's
    lam for lambda, a Python keyword); later entries win. Unknown dotted names are passed
    through, so that the schema's check raises the CLI's message ("unknown parameter 'x' for
    workload 'w' (known: a.b, ...)"); an unknown keyword raises the same message with the
    keyword spellings as the known names (ValueError)."""
    spelled = {name: alias for alias, name in (aliases or {}).items()}
    table = {spelled.get(n, k): n for k, n in keywords(workload).items()}  # schema order
    out = []
    for name, value in (params or {}).items():
        out.append((str(name), text(value)))
    for key, value in kwargs.items():
        if key not in table and key not in table.values():
            known = ", ".join(table)
            raise ValueError("unknown parameter '%s' for workload '%s' (known: %s)"
                             % (key, workload, known))
        out.append((table.get(key, key), text(value)))
    return out
