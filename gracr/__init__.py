"""gracr: compile graded modal logic into GNN weights; exact ground-truth explanations.

The pipeline, one stage per subpackage, each importing only the ones before it:
`data` (graphs, schemas, JSON), `dsl` (text -> typed IR), `compiler` (IR -> core IR
-> weights -> `Network`), `executor` (the layer equation in numpy, torch/PyG and
numba; `CompiledGNN`), `bdd` (IR x graph -> ROBDD -> UPI), `bench` (GracrBench).
"""

from gracr.places import keep_numba_cache_in_the_cache_folder

keep_numba_cache_in_the_cache_folder()

from gracr.bdd.upi import node_receptive_field, receptive_field, upi, upi_report
from gracr.data.graph import Graph, read_graphs
from gracr.data.schema import Family, Schema
from gracr.dsl.parse import Program, parse, parse_file
from gracr.errors import GmlError, GracrError, GraphError, ModelFileError
from gracr.executor.model import CompiledGNN, load
from gracr.executor.model import compile_program as compile

from gracr.version import __version__

__all__ = [
    "CompiledGNN", "Family", "GmlError", "GracrError", "Graph", "GraphError", "ModelFileError", "Program",
    "__version__", "compile", "load", "parse", "parse_file", "node_receptive_field", "read_graphs", "receptive_field", "Schema",
    "upi", "upi_report",
]
