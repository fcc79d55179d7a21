#!/usr/bin/env bash
# Run the test suite (after scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pytest -p no:cacheprovider "$@"
