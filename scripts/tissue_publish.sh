#!/usr/bin/env bash
# Publish the tissue study at scale (scripts/tissue_scale.sh OUT) into the documentation:
# the tables of dataset seed 0's report, its two figures, the spreads over the three
# dataset seeds and the note's findings over them (with seeds 1 and 2's own headline
# tables), each seed's convergence and cost tables, the sparse family's tables, and the
# run's cost by work item.
# Every file is a copy of one the commands wrote (nothing is edited by hand); the prose
# of docs/results/tissue/README.md that reads them is written by hand afterwards.
#
#   scripts/tissue_publish.sh OUT [DOCS]      # DOCS: default docs/results/tissue
#
# The spreads are drawn again here (`gracrc tissue-seeds`, a few CPU seconds), so that
# they read the seeds' folders as they are now, not as the run's last pass left them.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/tissue_publish.sh OUT [DOCS]}
docs=${2:-docs/results/tissue}
python=${PYTHON:-.venv/bin/python}
export PYTHONPATH=${PYTHONPATH:-.}

for seed in 0 1 2; do
  [ -f "$out/seed$seed/tables/headlines.md" ] || {
    echo "$out/seed$seed/tables/headlines.md: not found (has the study of dataset seed" \
         "$seed reported yet?)" >&2; exit 1; }
done
mkdir -p "$docs/scale"

# Dataset seed 0's report: every table (Markdown), and the two samples its figures draw.
for table in "$out"/seed0/tables/*.md; do
  name=$(basename "$table")
  case "$name" in convergence.md|cost.md) ;; *) cp "$table" "$docs/$name" ;; esac
done
for class in positive negative; do
  figure=$(ls "$out"/seed0/figures/"$class"-sample-*.png | head -n 1)
  cp "$figure" "$docs/$class-sample.png"
done

# The spreads over dataset seeds, one table per metric.
for metric in AP AUROC "decoy mass"; do
  "$python" -m gracr.cli tissue-seeds "$out/seed0" "$out/seed1" "$out/seed2" \
    --out "$out/seeds" --metric "$metric" > /dev/null
done
cp "$out"/seeds/seeds-*.md "$docs/"
# Each dataset seed's own headline table beside seed 0's (`headlines.md`), which
# seeds-headlines.md sets side by side.
for seed in 1 2; do
  cp "$out/seed$seed/tables/headlines.md" "$docs/headlines-seed$seed.md"
done

# Per dataset seed: how each model's training stopped and what its results cost; the
# sparse-driver family's three tables in one file.
sparse="$docs/scale/sparse.md"
printf '# The sparse-driver family (`gracrc tissue-sparse`, copied from OUT/sparseS/tables/sparse.md)\n' > "$sparse"
for seed in 0 1 2; do
  cp "$out/seed$seed/tables/convergence.md" "$docs/scale/convergence-seed$seed.md"
  cp "$out/seed$seed/tables/cost.md" "$docs/scale/cost-seed$seed.md"
  if [ -f "$out/sparse$seed/tables/sparse.md" ]; then
    printf '\n## Dataset seed %s\n\n' "$seed" >> "$sparse"
    cat "$out/sparse$seed/tables/sparse.md" >> "$sparse"
  fi
done
cp "$out/cost.tsv" "$docs/scale/run-cost.tsv"
echo "published $out into $docs"
