#!/usr/bin/env bash
# Create .venv and install gracr with its test tools. Idempotent.
# torch is pinned to the CPU build (torch==2.13.0): a bare `torch` pulls a
# multi-GB CUDA build. Every other dependency is installed at the exact version of
# constraints.txt (what the tests and the published tables last passed with; the code
# overrides private PyG methods, so an unpinned PyG could break it silently).
# pyproject.toml keeps the ranges a user's own environment may take. The optional Ray
# extra is installed too, so that the tests of `--engine ray` run; nothing else needs it.
# So is the chem extra (RDKit, datamol): the tests of gracr.domains.chem need it, and the
# docs extra (MkDocs, Material, mkdocstrings): CI builds the documentation site with it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install --quiet -c constraints.txt -e ".[test,ray,chem,docs]"
