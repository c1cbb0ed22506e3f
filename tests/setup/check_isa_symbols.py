"""Checks that each instruction-set level's kernels keep to their own code (cmake/SimscopeIsa.cmake).

Usage: check_isa_symbols.py BUILD_DIR. For every level of BUILD_DIR/isa/<level>.objects (one
object file per line), with binutils' nm:
- no weak or unique definitions (nm's W, V, u) other than the unwinder's DW.ref.* pointers: the
  linker would keep one level's copy for all levels (an illegal instruction on a CPU without it);
- every global definition of code or initialised data (nm's T, D, B, R, G) is in the level's
  namespace isa_<level> (common symbols, C, are data without code: the empty objects of
  std::ranges' algorithms);
- no reference to another level's namespace;
- no local copy of the type_info of a type shared with the rest of the program (a class without
  a key function, e.g. an exception: a `catch` elsewhere would not match what a kernel throws).
Prints one line per object; exits 1 naming the first offending symbols.
"""
import pathlib
import re
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", "-C", "--defined-only", "-g", str(obj)], check=True,
                         capture_output=True, text=True).stdout
    defined = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            defined.append((parts[1], parts[2]))
    undefined = subprocess.run(["nm", "-C", "-u", str(obj)], check=True, capture_output=True,
                               text=True).stdout.split("\n")
    return defined, [u.strip().split(" ", 1)[-1] for u in undefined if u.strip()]


def main():
    build = pathlib.Path(sys.argv[1])
    lists = sorted((build / "isa").glob("*.objects"))
    if not lists:
        print(f"{build}/isa holds no *.objects lists: is this a configured simscope build?")
        return 1
    levels = [p.stem for p in lists]
    bad = []
    for lst in lists:
        level = lst.stem
        ns = f"isa_{level}::"
        objs = [pathlib.Path(l) for l in lst.read_text().split("\n") if l.strip()]
        for obj in objs:
            if not obj.exists():
                bad.append(f"{obj}: missing (build the project first)")
                continue
            defined, undefined = symbols(obj)
            kinds = {}
            for kind, name in defined:
                if kind in "WVu" and not name.startswith("DW.ref."):
                    bad.append(f"{level}: {obj.name}: weak/unique definition ({kind}) {name}")
                elif kind in "TDBRG" and ns not in name:
                    bad.append(f"{level}: {obj.name}: global {name} outside {ns}")
                kinds[kind] = kinds.get(kind, 0) + 1
            ns_mangled = f"{len('isa_' + level)}isa_{level}"
            local = subprocess.run(["nm", str(obj)], check=True, capture_output=True,
                                   text=True).stdout.split("\n")
            for line in local:
                parts = line.split()
                if len(parts) == 3 and parts[1] in "drb" and parts[2].startswith("_ZTI") and \
                        ns_mangled not in parts[2] and "_GLOBAL__N_" not in parts[2]:
                    bad.append(f"{level}: {obj.name}: a local type_info of a shared type, "
                               f"{parts[2]} (give the class a key function)")
            for name in undefined:
                for other in levels:
                    if other != level and f"isa_{other}::" in name:
                        bad.append(f"{level}: {obj.name}: refers to {other}'s {name}")
            print(f"{level}: {obj.name}: {len(defined)} global definitions "
                  f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), "
                  f"{len(undefined)} references")
    if bad:
        print("\n".join(bad[:40]))
        print(f"{len(bad)} problems: see cmake/SimscopeIsa.cmake")
        return 1
    print(f"levels {', '.join(levels)}: each keeps to its own namespace, no weak definitions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
