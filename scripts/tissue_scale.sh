#!/usr/bin/env bash
# The tissue study at scale (docs/results/tissue/README.md): three dataset seeds, each
# 300 samples of ~300 cells, up to 50 positive and 50 negative test samples explained,
# every ratio with three training seeds, training to early stopping. Resumable: run it
# again with the same OUT and it continues where it stopped.
#
#   scripts/tissue_scale.sh OUT [LANES]
#
# The work is items (dataset seed, test limit) in priority order: every seed at 10
# samples per class first, then 25, then 50 (the test limit may grow on a resume, so
# each item adds samples to the seed's folder). LANES (default 2) processes take items
# one at a time; a seed's folder is held by one lane at a time (`flock`), and a seed's
# items run in order. An item done is marked in OUT/done/; each item's wall and CPU
# time go to OUT/cost.tsv. Every process runs at nice 19 with one torch thread.
#
# Stop: kill the lanes' process group (`kill -- -PGID`, PGID in OUT/lanes.pgid): a study
# resumes from its files (an explanation or a model in flight is lost, nothing else).
# Pause: `kill -STOP -- -PGID`, continue: `kill -CONT -- -PGID`.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/tissue_scale.sh OUT [LANES]}
lanes=${2:-2}
python=${PYTHON:-.venv/bin/python}
mkdir -p "$out/done" "$out/logs" "$out/locks"
ps -o pgid= $$ | tr -d ' ' > "$out/lanes.pgid"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
[ -s "$out/cost.tsv" ] || printf 'item\tstart\twall_s\tuser_s\tsys_s\texit\n' > "$out/cost.tsv"

seeds=(0 1 2)
limits=(10 25 50)

study() {   # seed limit: one item, the study's own command
  local seed=$1 limit=$2
  nice -n 19 "$python" -m gracr.cli tissue-study --out "$out/seed$seed" --seed "$seed" \
    --samples 300 --cells 300 --test-limit "$limit" --model-seeds 0,1,2 \
    --ratios 1,1.5,2,3 --epochs 30,100,200,400 --max-epochs 300 --patience 20 \
    --min-delta 0.001 --jobs 1
}

ready() {   # seed limit: the seed's earlier limits are done, this one is not
  local seed=$1 limit=$2 before
  [ -e "$out/done/seed$seed-limit$limit" ] && return 1
  for before in "${limits[@]}"; do
    [ "$before" -ge "$limit" ] && break
    [ -e "$out/done/seed$seed-limit$before" ] || return 1
  done
}

lane() {
  local number=$1 seed limit progress
  while :; do
    progress=0
    for limit in "${limits[@]}"; do
      for seed in "${seeds[@]}"; do
        ready "$seed" "$limit" || continue
        exec {lock}>"$out/locks/seed$seed"
        if flock -n "$lock"; then
          if ready "$seed" "$limit"; then
            item="seed$seed-limit$limit"
            start=$(date -u +%FT%TZ)
            echo "lane $number: $item from $start" >> "$out/logs/lanes.log"
            /usr/bin/time -f "%e %U %S" -o "$out/logs/$item.time" \
              bash -c "$(declare -f study); out='$out' python='$python' study $seed $limit" \
              >> "$out/logs/$item.log" 2>&1
            code=$?
            read -r wall user system < "$out/logs/$item.time" || true
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$item" "$start" "${wall:-}" "${user:-}" \
              "${system:-}" "$code" >> "$out/cost.tsv"
            [ "$code" -eq 0 ] && : > "$out/done/$item"
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
      remaining=$(for l in "${limits[@]}"; do for s in "${seeds[@]}"; do
        [ -e "$out/done/seed$s-limit$l" ] || echo x; done; done | wc -l)
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
