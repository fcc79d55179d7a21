"""The input fuzzer: hostile `.gml` sources, graph JSON, model files and task files thrown at
the API and at `gracrc`, looking for anything that is neither a clean refusal nor a
consistent result.

`kinds` defines what an input kind is and keeps the registry; `gml`, `graph_json`,
`model_file`, `task_file`, `tissue_options`, `seeds_csv`, `cli_options`, `output_paths`,
and with RDKit `smarts` and `molecules`, are the kinds (each registered here; `commands`
runs a `gracrc` command line for the kinds whose input is one); `oracle` checks an
input that got through (evaluator == numpy forward == ROBDD label, UPI inside the
receptive field and equal to the brute force on small graphs); `driver` draws, runs under the time limit,
samples `gracrc`, and tallies. `benchmarks/fuzz_inputs.py` is its command line.

It draws with Hypothesis, a test dependency (`pip install -e ".[test]"`).
"""

import importlib.util

from gracr.fuzz.inputs import (cli_options, gml, graph_json, model_file, output_paths,
                               seeds_csv, task_file, tissue_options)
from gracr.fuzz.inputs.driver import (FuzzInputsConfig, InputsReport, fuzz_inputs, replay,
                                      report_table)
from gracr.fuzz.inputs.kinds import KINDS, Finding, InputKind, register_kind

for _kind in (gml.KIND, graph_json.KIND, model_file.KIND, task_file.KIND, tissue_options.KIND,
              seeds_csv.KIND, cli_options.KIND, output_paths.KIND):
    register_kind(_kind)
if importlib.util.find_spec("rdkit") is not None:   # the molecule kinds need gracr[chem]
    from gracr.fuzz.inputs import molecules, smarts

    register_kind(smarts.KIND)
    register_kind(molecules.KIND)

__all__ = ["FuzzInputsConfig", "Finding", "InputKind", "InputsReport", "KINDS", "fuzz_inputs",
           "register_kind", "replay", "report_table"]
