#!/usr/bin/env bash
# The tissue study at scale (docs/results/tissue/README.md): three dataset seeds, each
# 600 samples of ~300 cells (split 360 / 120 / 120: a test split that holds 50 samples of
# each class), up to 50 positive and 50 negative test samples explained,
# every ratio with three training seeds, training to early stopping; and the
# sparse-driver family on three dataset seeds. Resumable: run it
# again with the same OUT and it continues where it stopped.
#
#   scripts/tissue_scale.sh OUT [LANES]
#
# The work is items (dataset seed, stage) in priority order, every seed through a stage
# before any goes on to the next: stage 1, the sparse-driver family (`gracrc
# tissue-sparse`, OUT/sparseS: six models, no explanations, the cheapest whole result);
# stage 2, ratio 1 (and the CNN) with 10 samples per class; stage 3, ratio 1 with 50;
# stage 4, every ratio with 50 (the test limit and the ratios may grow on a resume, so
# each stage adds samples, or models, to the seed's folder OUT/seedS). Stage 4 runs on
# the dataset seeds in RATIO_SEEDS (default 0: the ratio grid is three quarters of the
# whole run's CPU, ≈ 9 CPU hours a dataset seed, docs/results/tissue/scale/README.md;
# RATIO_SEEDS="0 1 2" runs it on all three). LANES
# (default 2) processes take items one at a time; a seed's folder is held by one lane
# at a time (`flock`), and a seed's stages run in order. An item done is marked in
# OUT/done/ (one that failed in OUT/failed/: the seed's later stages wait for the next
# run, which tries it again); each item's wall and CPU time go to OUT/cost.tsv. Every process runs at nice 19 with one torch thread.
# JOBS (default 1): each study's `--jobs`, the processes it explains and trains in (the
# same records): with one item left (stage 4 on one dataset seed), one lane and JOBS=2
# use both cores of a 2-core machine.
#
# ARCHIVE (default runs/tissue in this checkout): each dataset seed's study as earlier
# sessions packed it (runs/README.md), unpacked into OUT/seedS before each of the seed's
# studies (it adds only what the folder lacks), so that a fresh machine resumes where the
# archive ends. The unpack makes the data from the seed and checks them against the
# archive's fingerprint; other data fail the item, saying so. At the end of a session,
# pack each seed and commit (runs/README.md):
#
#   PYTHONPATH=. .venv/bin/python scripts/tissue_archive.py pack OUT/seedS runs/tissue/seedS
#
# REPLACE_STALE=1 passes `--replace-stale` to every study: a model the code now makes with
# other settings (a new learning rate, say) is trained again even where the seed's folder
# explained it, those records moved to OUT/seedS/attributions/replaced.jsonl. Without it
# such a study fails its item, naming the records. The archive then no longer matches the
# folder: pack each seed into a new, empty archive folder (runs/README.md).
#
# Stop: kill the lanes' process group (`kill -- -PGID`, PGID in OUT/lanes.pgid): a study
# resumes from its files (an explanation or a model in flight is lost, nothing else).
# Pause: `kill -STOP -- -PGID`, continue: `kill -CONT -- -PGID`.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/tissue_scale.sh OUT [LANES]}
lanes=${2:-2}
python=${PYTHON:-.venv/bin/python}
archive=${ARCHIVE:-$PWD/runs/tissue}
replace_stale=$([ "${REPLACE_STALE:-0}" = 1 ] && echo 1 || true)
jobs=${JOBS:-1}
mkdir -p "$out/done" "$out/logs" "$out/locks" "$out/failed"
rm -f "$out/failed/"*   # a new run tries the items that failed last time again
ps -o pgid= $$ | tr -d ' ' > "$out/lanes.pgid"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1 PYTHONPATH=${PYTHONPATH:-.}
[ -s "$out/cost.tsv" ] || printf 'item\tstart\twall_s\tuser_s\tsys_s\texit\n' > "$out/cost.tsv"

seeds=(0 1 2)
ratio_seeds=" ${RATIO_SEEDS:-0} "
stages=(1 2 3 4)
stage_ratios=("" "" 1 1 1,1.5,2,3)
stage_limit=("" "" 10 50 50)

study() {   # seed stage: one item, the study's own command (stage 1: the sparse family)
  local seed=$1 stage=$2
  if [ "$stage" -eq 1 ]; then
    nice -n 19 "$python" -m gracr.cli tissue-sparse --out "$out/sparse$seed" --seed "$seed" \
      --samples 600 --cells 300 --model-seeds 0,1,2 --max-epochs 300 --patience 50 \
      --min-delta 0.001
    return
  fi
  if [ -f "$archive/seed$seed/settings.json" ]; then   # what earlier sessions packed
    nice -n 19 "$python" scripts/tissue_archive.py unpack "$archive/seed$seed" \
      "$out/seed$seed" || return
  fi
  # The sparse family's folders (stage 1) for the report's headline row.
  local sparse
  sparse=$(for s in 0 1 2; do
    [ -f "$out/sparse$s/models/training.jsonl" ] && printf '%s,' "$out/sparse$s"; done)
  nice -n 19 "$python" -m gracr.cli tissue-study --out "$out/seed$seed" --seed "$seed" \
    --sparse "$sparse" --samples 600 --cells 300 --test-limit "${stage_limit[$stage]}" --model-seeds 0,1,2 \
    --ratios "${stage_ratios[$stage]}" --epochs 30,100,200,400 --max-epochs 300 \
    --patience 50 --min-delta 0.001 --jobs "$jobs" ${replace_stale:+--replace-stale}
}

wanted() {   # seed stage: the item is part of this run
  [ "$2" -ne 4 ] || [[ "$ratio_seeds" == *" $1 "* ]]
}

ready() {   # seed stage: the seed's earlier stages are done, this one is not
  local seed=$1 stage=$2 before
  wanted "$seed" "$stage" || return 1
  [ -e "$out/done/seed$seed-stage$stage" ] || [ -e "$out/failed/seed$seed-stage$stage" ] \
    && return 1
  for ((before = 1; before < stage; before++)); do
    [ -e "$out/done/seed$seed-stage$before" ] || return 1
  done
}

lane() {
  local number=$1 seed stage progress
  while :; do
    progress=0
    for stage in "${stages[@]}"; do
      for seed in "${seeds[@]}"; do
        ready "$seed" "$stage" || continue
        exec {lock}>"$out/locks/seed$seed"
        if flock -n "$lock"; then
          if ready "$seed" "$stage"; then
            item="seed$seed-stage$stage"
            start=$(date -u +%FT%TZ)
            echo "lane $number: $item from $start" >> "$out/logs/lanes.log"
            /usr/bin/time -f "%e %U %S" -o "$out/logs/$item.time" \
              bash -c "$(declare -p stage_ratios stage_limit); $(declare -f study)
                       out='$out' python='$python' archive='$archive' \
                       replace_stale='$replace_stale' jobs='$jobs' study $seed $stage" \
              >> "$out/logs/$item.log" 2>&1
            code=$?
            read -r wall user system < <(tail -n 1 "$out/logs/$item.time") || true
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$item" "$start" "${wall:-}" "${user:-}" \
              "${system:-}" "$code" >> "$out/cost.tsv"
            if [ "$code" -eq 0 ]; then : > "$out/done/$item"; else : > "$out/failed/$item"; fi
            progress=1
          fi
          flock -u "$lock"
        fi
        exec {lock}>&-
        [ "$progress" -eq 1 ] && break 2
      done
    done
    if [ "$progress" -eq 0 ]; then
      # Nothing this lane can take now: finished, or every ready seed is held.
      remaining=$(for t in "${stages[@]}"; do for s in "${seeds[@]}"; do
        ! wanted "$s" "$t" || [ -e "$out/done/seed$s-stage$t" ] \
          || [ -e "$out/failed/seed$s-stage$t" ] || echo x; done; done | wc -l)
      [ "$remaining" -eq 0 ] && break
      sleep 60
    fi
  done
  echo "lane $number: nothing left" >> "$out/logs/lanes.log"
}

for number in $(seq 1 "$lanes"); do
  lane "$number" &
done
wait
nice -n 19 "$python" -m gracr.cli tissue-seeds "$out/seed0" "$out/seed1" "$out/seed2" \
  --out "$out/seeds" >> "$out/logs/seeds.log" 2>&1
for metric in AUROC "decoy mass"; do
  nice -n 19 "$python" -m gracr.cli tissue-seeds "$out/seed0" "$out/seed1" "$out/seed2" \
    --out "$out/seeds" --metric "$metric" >> "$out/logs/seeds.log" 2>&1
done
