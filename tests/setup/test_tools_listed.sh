#!/usr/bin/env bash
# Lint (ctest: setup.tools_listed): every external program a Python test starts (need_tools(...),
# shutil.which("..."), subprocess.run(["...", ...])) has a line in tools.txt, so that the guard
# check_tools.sh checks it. Programs of Essential packages are listed in ESSENTIAL below.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
ESSENTIAL="sh localedef"
mapfile -t used < <(
  { grep -rhoE 'need_tools\([^)]*\)' "$root/tests" --include='*.py' | grep -oE '"[^"]+"'
    grep -rhoE 'shutil\.which\("[^"]+"' "$root/tests" --include='*.py' | grep -oE '"[^"]+"'
    grep -rhoE 'subprocess\.(run|Popen|check_output|call)\(\["[^"]+"' "$root/tests" --include='*.py' |
      grep -oE '"[^"]+"'
  } | tr -d '"' | sort -u)
listed="$(sed -e 's/#.*//' "$here/tools.txt" | awk 'NF {print $1}')"
status=0
for t in "${used[@]}"; do
  case " $ESSENTIAL " in *" $t "*) continue ;; esac
  grep -qxF "$t" <<< "$listed" || { echo "tests use $t, which tests/setup/tools.txt does not list"; status=1; }
done
[ "$status" = 0 ] && echo "every program the Python tests start is in tools.txt: ${used[*]}"
exit $status
