"""gracr: compile graded modal logic into GNN weights; exact ground-truth explanations.

The public API, one name per step (each documented with an example):

- `gracr.parse(source) -> Program`: `.gml` text (a `str`) or a file (a `PathLike`).
- `gracr.compile(program, **options) -> CompiledGNN`; `gracr.load(path)` reads a saved one.
- `gracr.evaluate(program, graph)`: the reference semantics.
- `gracr.ground_truth(program, graph, *, target, over, signed) -> GroundTruth`: the exact
  explanation (UPI masks; counterfactuals, Banzhaf, Shapley when signed).
- `gracr.explain(model, graph, explainer, ...)` -> PyG `Explanation`, and
  `gracr.score(explanation, truth, metric=...)`.
- `gracr.Benchmark(tasks, explainers, seeds, ...)` with `.run(out, jobs=, engine=)` and
  `.report(...)`: GracrBench.
- `gracr.audit(data, settings) -> AuditReport`: App. B's shortcut audit of a dataset with
  a planted ground truth (probes, trained models, perturbation outside the motif).

`import gracr` stays light (no torch, no PyG, no numba, no scipy, no lark): `explain`,
`score`, `Benchmark`, `parse` and `audit` are imported on first use (module `__getattr__`).

The pipeline, one stage per subpackage, each importing only the ones before it:
`data` (graphs, schemas, JSON), `dsl` (text -> typed IR), `compiler` (IR -> core IR
-> weights -> `Network`), `executor` (the layer equation in numpy, torch/PyG and
numba; `CompiledGNN`), `bdd` (IR x graph -> ROBDD -> UPI), `explainers`, `bench`
(GracrBench), `domains`.
"""

from typing import TYPE_CHECKING

from gracr.places import keep_numba_cache_in_the_cache_folder

keep_numba_cache_in_the_cache_folder()

from gracr.bdd.ground_truth import GroundTruth, SignedMethod, ground_truth
from gracr.bdd.upi import node_receptive_field, receptive_field
from gracr.data.graph import Graph, read_graphs
from gracr.data.schema import Family, Schema
from gracr.dsl.evaluate import evaluate_program as evaluate
from gracr.dsl.program import Program
from gracr.errors import GmlError, GracrError, GraphError, ModelFileError
from gracr.executor.model import CompiledGNN, load
from gracr.executor.model import compile_program as compile

from gracr.lazy import lazy_attributes
from gracr.version import __version__

if TYPE_CHECKING:
    from gracr.audit.run import audit
    from gracr.benchmark import Benchmark, BenchmarkRun
    from gracr.dsl.parse import parse
    from gracr.explainers.api import explain, score

# The names that import torch (or the benchmark engine, or the parser's lark): where each
# is defined.
_HEAVY = {
    "explain": "gracr.explainers.api", "score": "gracr.explainers.api",
    "Benchmark": "gracr.benchmark", "BenchmarkRun": "gracr.benchmark",
    "parse": "gracr.dsl.parse", "audit": "gracr.audit",
}

# `audit` is the package `gracr.audit` itself, which is callable (`gracr.audit.run`):
# importing any of its modules binds the package to that name anyway.
__getattr__ = lazy_attributes(__name__, _HEAVY, globals())


__all__ = [
    "Benchmark", "BenchmarkRun", "CompiledGNN", "Family", "GmlError", "GracrError", "Graph",
    "GraphError", "GroundTruth", "ModelFileError", "Program", "Schema", "SignedMethod",
    "__version__", "audit", "compile", "evaluate", "explain", "ground_truth", "load",
    "node_receptive_field", "parse", "read_graphs", "receptive_field", "score",
]
