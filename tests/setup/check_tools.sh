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
owner_of() { dpkg -S "$1" 2>/dev/null | head -1 | sed -e 's/:.*//' -e 's/,.*//'; }
# Owner of the path, else of the path with its symlinks resolved.
owner() {
  local o; o="$(owner_of "$1")"
  [ -n "$o" ] || o="$(owner_of "$(readlink -f "$1")")"
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
while read -r what pkg _; do
  if ! is_listed "$pkg"; then
    fail "$what needs the Debian package $pkg, which $(basename "$packages_file") does not list"
    continue
  fi
  case "$what" in
    python3:*)
      mod="${what#python3:}"
      path="$("$python" -c "import $mod as m; print(m.__file__)" 2>/dev/null)"
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
