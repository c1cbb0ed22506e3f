#!/usr/bin/env bash
# Tests of the set-up guard check_tools.sh (ctest: setup.check_tools_guard): it passes with the
# project's lists and, for each way a tool can be missing from the set-up, fails with exactly one
# line naming the tool and the package.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # check NAME EXPECTED_RC REGEX PACKAGES TOOLS
  local out rc lines
  out="$("$here/check_tools.sh" "$4" "$5" 2>&1)"; rc=$?
  lines=$(printf '%s' "$out" | grep -c '')
  if [ "$rc" != "$2" ]; then
    echo "FAIL $1: exit $rc, expected $2: $out"; failures=$((failures + 1))
  elif [ "$2" = 0 ] && [ -n "$out" ]; then
    echo "FAIL $1: printed something on success: $out"; failures=$((failures + 1))
  elif [ "$2" != 0 ] && { [ "$lines" != 1 ] || ! printf '%s' "$out" | grep -qE "$3"; }; then
    echo "FAIL $1: expected one line matching '$3', got $lines: $out"; failures=$((failures + 1))
  else
    echo "ok   $1${out:+: $out}"
  fi
}

# The project's own lists pass (this machine was set up by ./simscope.sh).
check "project lists" 0 "" "$root/packages.txt" "$here/tools.txt"

# packages.txt without xdotool (the bug of issue 10): one line naming xdotool and its package.
grep -v '^xdotool' "$root/packages.txt" > "$tmp/no-xdotool.txt"
check "list lacks xdotool" 1 "^simscope: set-up check: xdotool needs the Debian package xdotool, which no-xdotool.txt does not list$" \
  "$tmp/no-xdotool.txt" "$here/tools.txt"

# A listed package whose program is not installed.
printf 'simscope-no-such-tool  simscope-no-such-pkg\n' > "$tmp/tools-missing.txt"
{ cat "$root/packages.txt"; echo simscope-no-such-pkg; } > "$tmp/packages-plus.txt"
check "program not installed" 1 "simscope-no-such-tool not found on PATH: install the Debian package simscope-no-such-pkg" \
  "$tmp/packages-plus.txt" "$tmp/tools-missing.txt"

# A program that comes from another package than the one listed for it (xdotool is not xvfb's).
printf 'xdotool  xvfb\n' > "$tmp/tools-wrong.txt"
check "program from another package" 1 "^simscope: set-up check: xdotool \(/usr/bin/xdotool\) comes from the Debian package xdotool, not from xvfb" \
  "$root/packages.txt" "$tmp/tools-wrong.txt"

# A program outside Debian's packages (e.g. a hand install in /usr/local/bin) is refused.
mkdir -p "$tmp/bin"; printf '#!/bin/sh\n' > "$tmp/bin/xdotool"; chmod +x "$tmp/bin/xdotool"
printf 'xdotool  xdotool\n' > "$tmp/tools-x.txt"
PATH="$tmp/bin:$PATH" check "hand-installed program" 1 "xdotool \($tmp/bin/xdotool\) belongs to no Debian package: install the Debian package xdotool" \
  "$root/packages.txt" "$tmp/tools-x.txt"

# A Python module that /usr/bin/python3 cannot import.
printf 'python3:simscope_no_such_module  python3-numpy\n' > "$tmp/tools-py.txt"
check "python module missing" 1 "python3:simscope_no_such_module: /usr/bin/python3 cannot import simscope_no_such_module: install the Debian package python3-numpy" \
  "$root/packages.txt" "$tmp/tools-py.txt"

# A module is found through dpkg -S on its __file__. (The project-lists case above also checks
# that a dependency is accepted: python3-minimal owns /usr/bin/python3, python3 pre-depends on it.)
printf 'python3:numpy  xdotool\n' > "$tmp/tools-np.txt"
check "python module from another package" 1 "python3:numpy \(/usr/lib/python3/dist-packages/numpy/__init__.py\) comes from the Debian package python3-numpy, not from xdotool" \
  "$root/packages.txt" "$tmp/tools-np.txt"

[ "$failures" = 0 ] && echo "all guard cases pass" && exit 0
echo "$failures guard case(s) failed"; exit 1
