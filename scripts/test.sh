#!/usr/bin/env bash
# Run the test suite (after scripts/setup.sh): the default suite, on two worker processes
# (pytest-xdist). The tests that are slow because they are big are left out; run them with
#   bash scripts/test.sh -m big -n 0
# (CI runs them as their own stage; `-n 0` because they start worker processes themselves).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pytest -p no:cacheprovider -n 2 "$@"
