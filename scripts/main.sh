#!/usr/bin/env bash
# The main job on the bundled examples (after scripts/setup.sh): compile the paper's
# formulas, run them on the bundled graphs, compute exact UPI, build small GracrBench
# datasets and print their Table 15. Raw outputs go to out/main (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/main
mkdir -p "$out"
echo "== gracrc compile + inspect (CompetingRedundancy, App. C.5: 8 layers x 16 columns)"
.venv/bin/gracrc compile gracr/formulas/CompetingRedundancy.gml -o "$out/CompetingRedundancy.npz"
.venv/bin/gracrc inspect "$out/CompetingRedundancy.npz" | sed -n '1,30p'
echo
echo "== gracrc eval and gracrc upi on the bundled Majority1Hop graph"
.venv/bin/gracrc eval gracr/formulas/Majority1Hop.gml examples/graphs/Majority1Hop.jsonl --comparison direct
.venv/bin/gracrc upi gracr/formulas/Redundancy.gml examples/graphs/Redundancy.jsonl
echo
echo "== typed graphs: attribute families, relations, UPI over edges, nodes and both, the presence bit"
.venv/bin/gracrc inspect examples/typed/carbonyl.gml | sed -n '1,9p'
.venv/bin/gracrc upi examples/typed/carbonyl.gml examples/typed/molecules.jsonl --over both
.venv/bin/python examples/typed/typed_graphs.py
echo
echo "== spatial tissue: the generator, the ratio rule compiled, node UPI and signed exact ground truth"
.venv/bin/gracrc tissue --out "$out/tissue" --samples 10 --cells 300 --seed 0
.venv/bin/gracrc eval "$out/tissue/tissue.gml" "$out/tissue/graphs.jsonl"
head -1 "$out/tissue/graphs.jsonl" > "$out/tissue/one.jsonl"
.venv/bin/gracrc upi "$out/tissue/tissue.gml" "$out/tissue/one.jsonl" --over nodes | cut -c1-120
.venv/bin/gracrc relevance "$out/tissue/tissue.gml" "$out/tissue/one.jsonl" | sed -n '1,20p'
echo
echo "== the tissue study, tiny (the compiled rule beside trained GIN/GATv2; tables and figures)"
.venv/bin/gracrc tissue-study --out "$out/tissue-study" --samples 20 --cells 80 --ratios 1,2 \
    --model-seeds 0 --test-limit 2 --epochs 10,30 --max-epochs 10 --explainers Saliency,IG --quiet \
  | tail -1
sed -n '1,12p' "$out/tissue-study/tables/metric-ap.md"
echo "-- a second dataset seed (ratio 1 only), and both seed spreads"
.venv/bin/gracrc tissue-study --out "$out/tissue-study-seed1" --seed 1 --samples 20 --cells 80 \
    --ratios 1 --model-seeds 0 --test-limit 2 --epochs 10 --max-epochs 10 --explainers Saliency,IG \
    --quiet | tail -1
.venv/bin/gracrc tissue-seeds "$out/tissue-study" "$out/tissue-study-seed1" --out "$out/tissue-seeds" \
  | sed -n '1,14p'
echo
echo "== every formula, every compile option, on the bundled graphs"
.venv/bin/python examples/run_examples.py --out "$out"
echo
echo "== small GracrBench datasets (seed 0; 20 graphs / 50 targets per task) and their Table 15"
.venv/bin/gracrc dataset --stats --seeds 0 --graphs 20 --targets 50 --out "$out/datasets" \
    --table "$out/table15.md"
echo
echo "== a small GracrBench run (seed 0, first 5 positive instances per task, library explainers)"
.venv/bin/gracrc bench --tasks all --explainers Saliency,IG,Deconv,GuidedBP,GNNExplainer,Rnd \
    --seeds 0 --limit 5 --graphs 20 --targets 50 --datasets "$out/datasets" \
    --out "$out/bench" --jobs 2
echo
echo "== the small run as a browsable HTML report (opens from file://; its path is printed)"
.venv/bin/gracrc report --html "$out/bench" --datasets "$out/datasets" --graphs 20 --targets 50 \
    --out "$out/bench-html" | tail -2
