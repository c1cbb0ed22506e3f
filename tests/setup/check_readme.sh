#!/usr/bin/env bash
# docs/install.md's list of Debian packages ("Building by hand") is a copy of packages.txt,
# between the lines "<!-- packages.txt -->" and "<!-- /packages.txt -->". This checks that the
# copy matches (ctest: setup.readme_packages); with --write it rewrites the copy from packages.txt.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
readme="${README:-$root/docs/install.md}"
shown="${readme#"$root"/}"
want="$(sed -e 's/#.*//' "$root/packages.txt" | awk 'NF {printf "%s`%s`", (n++ ? ", " : ""), $1}' |
        fold -s -w 99 | sed -e 's/ $//')"
if ! grep -qx '<!-- packages.txt -->' "$readme" || ! grep -qx '<!-- /packages.txt -->' "$readme"; then
  echo "$shown has no <!-- packages.txt --> ... <!-- /packages.txt --> block"; exit 1
fi
have="$(sed -n '/^<!-- packages.txt -->$/,/^<!-- \/packages.txt -->$/p' "$readme" | sed '1d;$d')"
if [ "${1:-}" = --write ]; then
  awk -v list="$want" '
    /^<!-- packages.txt -->$/ {print; print list; skip = 1; next}
    /^<!-- \/packages.txt -->$/ {skip = 0}
    !skip {print}' "$readme" > "$readme.tmp" && mv "$readme.tmp" "$readme"
  echo "$shown's package list rewritten from packages.txt"; exit 0
fi
norm() { tr -d '`,' | tr -s ' \n' '\n\n' | awk 'NF'; }
if [ "$(norm <<< "$have")" != "$(norm <<< "$want")" ]; then
  echo "$shown's package list differs from packages.txt: run tests/setup/check_readme.sh --write"
  diff <(norm <<< "$have") <(norm <<< "$want") | grep '^[<>]' | head -20
  exit 1
fi
echo "$shown lists the $(norm <<< "$want" | wc -l) packages of packages.txt"
