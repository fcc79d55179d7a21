#!/usr/bin/env bash
# Build the wheel, install it into a fresh venv, and use it the way a new user would,
# from a folder outside the checkout: a dataset, a small bench, and a bench of a task
# file with a plugin explainer on two workers. Then check that neither the checkout nor
# the installed package changed, and that nothing was written where it was not asked.
#
# The fresh venv reuses the project's installed dependencies through a .pth file
# pointing at .venv's site-packages (nothing heavy is downloaded again); the wheel
# itself is installed with --no-deps, so `import gracr` is the wheel's, not the checkout's.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout="$(pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
before="$(git status --porcelain --untracked-files=all)"

.venv/bin/python -m pip wheel --quiet --no-deps --no-build-isolation . -w "$work/dist"
python3 -m venv "$work/venv"
site="$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))' > "$site/gracr-deps.pth"
"$work/venv/bin/python" -m pip install --quiet --no-deps "$work"/dist/gracr-*.whl
# From outside the checkout: `python -c` puts the working folder first on sys.path.
mkdir "$work/user" && cd "$work/user"
installed="$("$work/venv/bin/python" -c 'import gracr, os; print(os.path.dirname(gracr.__file__))')"
case "$installed" in
  "$site"/*) ;;
  *) echo "wheel_smoke: gracr imports from $installed, not from the fresh venv" >&2; exit 1 ;;
esac
package_before="$(cd "$installed" && find . -type f ! -name '*.pyc' | sort)"

export GRACR_CACHE="$work/cache" GRACR_CONFIG="$work/config"
gracrc="$work/venv/bin/gracrc"
"$gracrc" dataset Redundancy --graphs 20
"$gracrc" bench --tasks Redundancy --explainers Saliency,Rnd --seeds 0 --limit 3 --graphs 20 \
  --out bench --quiet --no-report

mkdir rule
cat > rule/red_hub.gml <<'GML'
colors red, blue
classify exists (blue & atleast 2 red)
GML
cat > rule/RedHub.toml <<'TOML'
name = "RedHub"
formula = "red_hub.gml"
[graphs]
family = "barabasi-albert"
nodes = { min = 10, max = 14 }
colors = { red = 0.3, blue = 0.7 }
[dataset]
graphs = 20
TOML
cat > degree_explainer.py <<'PY'
"""A plugin explainer: every edge scored by its source's out-degree."""
import torch
from torch_geometric.explain import Explanation

from gracr.explainers import ExplainerSpec, register


def explain(subject, settings, seed):
    sources = subject.edge_index[0]
    degree = torch.bincount(sources, minlength=int(subject.x.shape[0])).double()
    return Explanation(edge_mask=degree[sources])


register(ExplainerSpec("SourceDegree", explain, {}))
PY
"$gracrc" bench --tasks rule/RedHub.toml,Redundancy --explainers SourceDegree,Saliency \
  --plugin degree_explainer.py --seeds 0 --limit 3 --graphs 20 --out plugin-bench --jobs 2 \
  --quiet --no-report
"$work/venv/bin/python" - <<'PY'
import json
lines = open("plugin-bench/results.jsonl").read().splitlines()[1:]
records = [json.loads(line) for line in lines]
cells = sorted({(r["task"], r["explainer"]) for r in records})
assert cells == [("RedHub", "Saliency"), ("RedHub", "SourceDegree"),
                 ("Redundancy", "Saliency"), ("Redundancy", "SourceDegree")], cells
bad = [r for r in records if r["status"] != "ok"]
assert not bad and len(records) == 12, (len(records), bad[:1])
print(f"wheel_smoke: {len(records)} records, all ok, from the task file and the plugin")
PY

# Only what was asked for: the results folders here, datasets in the cache, nothing else.
found="$(find . -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')"
expected="./bench ./degree_explainer.py ./plugin-bench ./rule "
if [ "$found" != "$expected" ]; then
  echo "wheel_smoke: the working folder holds '$found', expected '$expected'" >&2; exit 1
fi
[ -d "$work/cache/datasets/Redundancy" ] || { echo "wheel_smoke: no dataset in the cache" >&2; exit 1; }
package_after="$(cd "$installed" && find . -type f ! -name '*.pyc' | sort)"
[ "$package_before" = "$package_after" ] || { echo "wheel_smoke: the installed package changed" >&2; exit 1; }
cd "$checkout"
after="$(git status --porcelain --untracked-files=all)"
[ "$before" = "$after" ] || { echo "wheel_smoke: the checkout changed:" >&2; diff <(echo "$before") <(echo "$after") >&2; exit 1; }
echo "wheel_smoke: ok"
