"""gracr: compile graded modal logic into GNN weights; exact ground-truth explanations.

The pipeline, one stage per subpackage: `dsl` (text -> typed IR), `compiler`
(IR -> core IR -> weights -> `CompiledGNN`), `bdd` (IR x graph -> ROBDD -> UPI),
`runtime` (graphs, the PyG module), `bench` (GracrBench).
"""

from gracr.bdd.upi import receptive_field, upi, upi_report
from gracr.compiler.compile import compile_program as compile
from gracr.compiler.model import CompiledGNN, load
from gracr.dsl.parse import Program, parse, parse_file
from gracr.errors import GmlError, GracrError, GraphError, ModelFileError
from gracr.data.graph import Graph, read_graphs

from gracr.version import __version__

__all__ = [
    "CompiledGNN", "GmlError", "GracrError", "Graph", "GraphError", "ModelFileError", "Program",
    "__version__", "compile", "load", "parse", "parse_file", "read_graphs", "receptive_field",
    "upi", "upi_report",
]
