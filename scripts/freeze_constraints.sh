#!/usr/bin/env bash
# Write constraints.txt: the exact versions installed in .venv (which the tests and the
# published tables passed with), for scripts/setup.sh to install on a fresh machine.
# Run it after a green CI on newer versions. gracr itself and tools that are not
# project dependencies (ruff) are left out; torch is written as the version the CPU
# build file carries (`torch==2.13.0` admits `2.13.0+cpu`).
set -euo pipefail
cd "$(dirname "$0")/.."
{
  echo "# The exact versions the tests and the published tables last passed with (CI installs"
  echo "# these: scripts/setup.sh passes this file to pip as constraints). Regenerate with"
  echo "# scripts/freeze_constraints.sh after a green CI on newer versions."
  .venv/bin/python -m pip freeze --exclude-editable 2>/dev/null \
    | grep -v -i -E "^(gracr|ruff)[=@ ]" | sed -E 's/^(torch==[0-9.]+)\+cpu$/\1/'
} > constraints.txt
echo "wrote constraints.txt ($(grep -c '==' constraints.txt) pins)"
