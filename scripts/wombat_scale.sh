#!/usr/bin/env bash
# WOMBAT's explainer study near WOMBAT's scale (docs/results/wombat_explainers.md), as
# stages that each add to one resumable study folder, cheapest first, so that the tables
# can be drawn from whatever is done:
#
#   PYTHON=.venv/bin/python setsid nohup nice -n 19 scripts/wombat_scale.sh \
#       >> RUNS/scale.log 2>&1 < /dev/null &
#
# RUNS (default /work/runs/wombat) holds the datasets (RUNS/data, made first if missing)
# and the study (RUNS/study). Run it again to resume: a stage that is done is checked from
# the records and passed over; a killed run loses at most the instances in flight (the
# runner appends one record per instance). Started with setsid, the script leads its own
# process group (PGID = its PID): pause and go on with `kill -STOP -- -PGID` and
# `kill -CONT -- -PGID`; stop with `kill -KILL -- -PGID` (a record is one write, a cut
# last line is set aside on the next start). JOBS (default 2) worker processes;
# ENGINE=ray ADDRESS=host:port runs the same stages on a Ray cluster. STAGES (default
# all, e.g. "1 2 3") runs only those. BATCH (default 32) molecules per run of the
# explainers that batch (the same scores). PYTHON: the interpreter with gracr installed.
# ARCHIVE (default runs/wombat in this checkout): the records packed by earlier sessions
# (runs/README.md), unpacked into RUNS before the first stage, so that a fresh machine
# resumes where the archive ends; the datasets are checked against the fingerprint kept
# there (the records name molecules by their place in the files).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
RUNS=${RUNS:-/work/runs/wombat}
JOBS=${JOBS:-2}
ENGINE=${ENGINE:-process}
STAGES=${STAGES:-W1 1 B 2 W2 3 S7 4 5 6 7 8 B}
# Molecules per run of the explainers that batch (docs/benchmarking/engines.md#batches);
# 1: one at a time.
BATCH=${BATCH:-32}
DATA=$RUNS/data
OUT=$RUNS/study
export PYTHONPATH=${PYTHONPATH:-.}

ARCHIVE=${ARCHIVE:-$PWD/runs/wombat}
WHITE=$RUNS/whiteboxes
if [ ! -f "$DATA/P14/P14.toml" ]; then
    # At least 1 000 distinct positives per pattern: the bundled sets' own, then grafts.
    "$PYTHON" scripts/wombat_datasets.py --out "$DATA" --min-positives 1200
fi
if [ ! -f "$WHITE/AntiIG/AntiIG.toml" ]; then
    # Table S2's rule and the anti-IG whitebox of pattern 12 (P12's molecules).
    "$PYTHON" scripts/wombat_whiteboxes.py --wombat "$DATA" --out "$WHITE"
fi
# The molecules the archived records were made on, file by file: a record names its
# molecule by its place in a file, so other files (another RDKit, another seed) must not
# take the archive's records.
fingerprint() {
    (cd "$RUNS" && sha256sum data/P*/molecules.jsonl whiteboxes/*/molecules.jsonl)
}
if [ -f "$ARCHIVE/molecules.sha256" ]; then
    if ! diff <(fingerprint) "$ARCHIVE/molecules.sha256" > /dev/null; then
        echo "the molecules in $RUNS are not those of $ARCHIVE/molecules.sha256:" \
             "the archive's records are not for them (build RUNS again, or move ARCHIVE)" >&2
        exit 2
    fi
    mkdir -p "$OUT" "$WHITE/results"
    "$PYTHON" scripts/records_archive.py unpack "$ARCHIVE/study" "$OUT/results.jsonl"
    "$PYTHON" scripts/records_archive.py unpack "$ARCHIVE/whiteboxes" \
        "$WHITE/results/results.jsonl"
    if [ -d "$ARCHIVE/permutations" ]; then   # stage S7's records
        mkdir -p "$RUNS/permutations"
        "$PYTHON" scripts/records_archive.py unpack "$ARCHIVE/permutations" \
            "$RUNS/permutations/results.jsonl"
    fi
fi

GRADIENTS=Saliency,InputXGradient,IG,Rnd
MASKS=GNNExplainer,PGExplainer
SLOW=ShapleySampling,SubgraphX
engine=(--engine "$ENGINE")
if [ -n "${ADDRESS:-}" ]; then engine+=(--address "$ADDRESS"); fi

# The two whiteboxes through the benchmark runner (their own results folder).
whiteboxes() {
    local name
    for name in S2 AntiIG; do   # each file whole (--graphs: its molecules)
        "$PYTHON" -m gracr.cli bench --tasks "$WHITE/$name/$name.toml" --level node \
            --variant max,soft-or --settings default --seeds 0 \
            --graphs "$(wc -l < "$WHITE/$name/molecules.jsonl")" --jobs "$JOBS" --batch "$BATCH" \
            "${engine[@]}" --datasets "$WHITE/datasets" --out "$WHITE/results" \
            --no-report --no-instance-figures "$@"
    done
}

study() {
    "$PYTHON" -m gracr.cli wombat-study --wombat "$DATA" --patterns 1-14 --jobs "$JOBS" \
        --batch "$BATCH" "${engine[@]}" --out "$OUT" "$@"
}

stage() {
    case $1 in
        # Every explainer on 100 molecules per class (the slow two: 30), our threshold
        # readout beside WOMBAT's two.
        1) study --explainers $GRADIENTS --positives 100 --negatives 100 ;;
        # Table S2's rule and the anti-IG whitebox: 300 per class (the masks 100, the slow
        # two 30, SubgraphX on positives only).
        W1) whiteboxes --explainers $GRADIENTS --limit 300 --negatives 300 ;;
        W2) whiteboxes --explainers $MASKS --limit 100 --negatives 100
            whiteboxes --explainers ShapleySampling --limit 30 --negatives 30
            whiteboxes --explainers SubgraphX --limit 30 --negatives 0 ;;
        2) study --explainers $MASKS --positives 100 --negatives 100 ;;
        # Figure S8's bound on 300 positives per pattern (one process; a table; run again
        # at the end, when PGExplainer's results are there to set beside it).
        B) "$PYTHON" benchmarks/wombat_pgexplainer_bound.py --wombat "$DATA" --study "$OUT" \
               --sample 300 --markdown "$RUNS/pgexplainer_bound.md" ;;
        3) study --explainers $SLOW --slow-positives 30 --slow-negatives 30 ;;
        # Then WOMBAT's two readouts only: 300 per class for the gradients and the masks,
        # 100 for the slow two (WOMBAT's own number), 1 000 for the gradients.
        4) study --explainers $GRADIENTS --variants max,soft-or --positives 300 --negatives 300 ;;
        5) study --explainers $MASKS --variants max,soft-or --positives 300 --negatives 300 ;;
        6) study --explainers $SLOW --slow-positives 100 --slow-negatives 100 ;;
        7) study --explainers $GRADIENTS --variants max,soft-or --positives 1000 --negatives 1000 ;;
        # Our threshold readout at 300 too.
        8) study --explainers $GRADIENTS,$MASKS --variants main --positives 300 --negatives 300 ;;
        # Figure S7: SHAP sampling at 25 and 400 permutations on the first 30 positives of
        # each pattern under r2, beside the study's own at 100 (stage 3), one pattern at a
        # time (--graphs: its file whole, the molecules the study reads).
        S7) local file n
            for file in "$DATA"/P*/P*.toml; do
                for n in 25 400; do
                    "$PYTHON" -m gracr.cli bench --tasks "$file" --level node \
                        --variant soft-or --settings default --explainers ShapleySampling \
                        --set "ShapleySampling.n_samples=$n" --seeds 0 --limit 30 \
                        --negatives 0 --graphs "$(wc -l < "$(dirname "$file")/molecules.jsonl")" \
                        --jobs "$JOBS" "${engine[@]}" --datasets "$OUT/datasets" \
                        --out "$RUNS/permutations" --no-report --no-instance-figures || return
                done
            done ;;
        *) echo "unknown stage $1" >&2; return 2 ;;
    esac
}

for name in $STAGES; do
    echo "== stage $name: $(date -u +%FT%TZ)"
    # A stage that fails is said so, and the next one runs (a rerun retries it).
    stage "$name" || echo "== stage $name FAILED (exit $?): $(date -u +%FT%TZ)"
done
echo "== done: $(date -u +%FT%TZ)"
