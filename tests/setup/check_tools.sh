#!/usr/bin/env bash
# The set-up guard (issue 10): every program, data file and Python module the tests use
# (tools.txt) must come from a Debian package in the set-up's list (packages.txt, installed by
# ./simscope.sh), so that a fresh machine runs the whole suite. Prints one line per tool that does
# not, naming the tool and the package, and exits 1; prints nothing and exits 0 when all do.
#   tests/setup/check_tools.sh [PACKAGES_FILE [TOOLS_FILE [PYTHON]]]
# (defaults: packages.txt, tests/setup/tools.txt, /usr/bin/python3). A tool's owner is found
# with dpkg -S on its path (then on the path with symlinks resolved); it is accepted when the
# owner is the tool's package, one that package depends on (python3 -> python3-minimal), or an
# Essential package.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
packages_file="${1:-$root/packages.txt}"
tools_file="${2:-$root/tests/setup/tools.txt}"
python="${3:-/usr/bin/python3}"
me="simscope: set-up check"

read_list() { sed -e 's/#.*//' "$1" | awk 'NF'; }
mapfile -t listed < <(read_list "$packages_file" | awk '{print $1}')
is_listed() { local p; for p in "${listed[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

# The package that owns a path (arch qualifier dropped), or nothing.
# One dpkg -S and one Python for all tools (each dpkg -S reads the whole package database, and
# an import of torch takes seconds): the owner of every path and of its resolved path, and the
# file of every Python module, read once into these maps.
declare -A owners modules
read_owners() {  # read_owners PATH...: owners[PATH] = its first package
  local line pkgs path
  while IFS= read -r line; do
    case "$line" in diversion*) continue ;; esac
    pkgs="${line%%: /*}"; path="/${line#*: /}"
    pkgs="${pkgs%%,*}"
    [ -n "${owners[$path]:-}" ] || owners[$path]="${pkgs%%:*}"
  done < <(dpkg -S "$@" 2>/dev/null)
}
read_modules() {  # read_modules MODULE...: modules[MODULE] = its __file__ (empty: no import)
  local mod path
  while IFS=$'\t' read -r mod path; do modules[$mod]="$path"; done < <("$python" -c '
import importlib, sys
for m in sys.argv[1:]:
    try:
        f = importlib.import_module(m).__file__
    except Exception:
        f = ""
    print(m + "\t" + (f or ""))' "$@" 2>/dev/null)
}
# Owner of the path, else of the path with its symlinks resolved.
owner() {
  local o="${owners[$1]:-}"
  [ -n "$o" ] || o="${owners[$(readlink -f "$1")]:-}"
  printf '%s' "$o"
}
# Direct (pre-)dependencies of an installed package, one name a line.
depends_of() {
  dpkg-query -W -f='${Pre-Depends}, ${Depends}\n' "$1" 2>/dev/null |
    tr ',|' '\n\n' | sed -e 's/(.*//' -e 's/:.*//' | awk 'NF {print $1}'
}
accepted() {  # accepted OWNER PACKAGE
  [ "$1" = "$2" ] && return 0
  depends_of "$2" | grep -qxF "$1" && return 0
  [ "$(dpkg-query -W -f='${Essential}' "$1" 2>/dev/null)" = yes ]
}

if ! command -v dpkg > /dev/null; then
  echo "$me: dpkg not found: this check needs Debian's package database"; exit 1
fi
status=0
fail() { echo "$me: $*"; status=1; }
mods=(); paths=()
while read -r what pkg _; do
  case "$what" in
    python3:*) mods+=("${what#python3:}") ;;
    /*) paths+=("$(compgen -G "$what" | head -1)") ;;
    *) paths+=("$(command -v "$what")") ;;
  esac
done < <(read_list "$tools_file")
[ ${#mods[@]} -eq 0 ] || read_modules "${mods[@]}"
for m in "${mods[@]}"; do paths+=("${modules[$m]:-}"); done
resolved=()
for p in "${paths[@]}"; do [ -z "$p" ] || resolved+=("$p" "$(readlink -f "$p")"); done
[ ${#resolved[@]} -eq 0 ] || read_owners "${resolved[@]}"
while read -r what pkg _; do
  if ! is_listed "$pkg"; then
    fail "$what needs the Debian package $pkg, which $(basename "$packages_file") does not list"
    continue
  fi
  case "$what" in
    python3:*)
      mod="${what#python3:}"
      path="${modules[$mod]:-}"
      if [ -z "$path" ]; then
        fail "$what: $python cannot import $mod: install the Debian package $pkg (./simscope.sh)"
        continue
      fi ;;
    /*)
      # shellcheck disable=SC2086
      path="$(compgen -G "$what" | head -1)"
      if [ -z "$path" ]; then
        fail "$what not found: install the Debian package $pkg (./simscope.sh)"; continue
      fi ;;
    *)
      path="$(command -v "$what")"
      if [ -z "$path" ]; then
        fail "$what not found on PATH: install the Debian package $pkg (./simscope.sh)"; continue
      fi ;;
  esac
  o="$(owner "$path")"
  if [ -z "$o" ]; then
    fail "$what ($path) belongs to no Debian package: install the Debian package $pkg"
  elif ! accepted "$o" "$pkg"; then
    fail "$what ($path) comes from the Debian package $o, not from $pkg in $(basename "$packages_file")"
  fi
done < <(read_list "$tools_file")
exit $status
