"""gracr.domains.tissue: tissue samples as graphs, after the tissue benchmark note.

A sample is a square field of cells (tumour, tcell, other) with a position in µm and six
markers (cd8, cd4, ck, ki67, pdl1, dapi); types are defined by the markers, and a sample
is positive iff more than θ of its tumour cells have a tcell within 30 µm. The parts:

- `table`: `CellTable`, the serialisable record of a sample, and the marker type rule;
- `radius`: roles, the engaged ratio, `recompute_label` and the `cKDTree` radius graph;
- `generator`: `TissueSettings`, hard-core placement, `generate_sample`,
  `generate_dataset` and θ for class balance;
- `dataset`: the program text, gracr's graph JSON and the files of a dataset;
- `figure` (import it by name; matplotlib is imported when it draws): the figure of one
  sample, its cells, the exact ground truth and explainers' scores as maps of the field;
- `trained` and `probes` (import them by name: they need torch-geometric and
  scikit-learn): PyG data, trained GIN and GATv2 and their files; the linear probe of
  node embeddings and GATv2 attention rollout.
"""

from gracr.lazy import lazy_attributes
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gracr.domains.tissue.dataset import graph_json, tissue_program, write_dataset
    from gracr.domains.tissue.generator import (MarkerModel, TissueSettings, choose_theta,
                                                draw_markers, generate_dataset,
                                                generate_sample, generation_seconds,
                                                place_cells)
    from gracr.domains.tissue.radius import (GRAPH_RADIUS_RATIOS, engaged_ratio,
                                             radius_graph, recompute_label, roles)
    from gracr.domains.tissue.table import CELL_TYPES, CHANNELS, CellTable, types_from_markers

# Where each name is defined. They are imported on first use (PEP 562): `generator` and
# `radius` import scipy, and `gracrc`'s parser reads `study_names` (so runs this file)
# for every command, `--help` included.
_DEFINED_IN = {
    **dict.fromkeys(("graph_json", "tissue_program", "write_dataset"),
                    "gracr.domains.tissue.dataset"),
    **dict.fromkeys(("MarkerModel", "TissueSettings", "choose_theta", "draw_markers",
                     "generate_dataset", "generate_sample", "generation_seconds",
                     "place_cells"), "gracr.domains.tissue.generator"),
    **dict.fromkeys(("GRAPH_RADIUS_RATIOS", "engaged_ratio", "radius_graph",
                     "recompute_label", "roles"), "gracr.domains.tissue.radius"),
    **dict.fromkeys(("CELL_TYPES", "CHANNELS", "CellTable", "types_from_markers"),
                    "gracr.domains.tissue.table"),
}

__getattr__ = lazy_attributes(__name__, _DEFINED_IN, globals())


__all__ = [
    "CELL_TYPES", "CHANNELS", "GRAPH_RADIUS_RATIOS", "CellTable", "MarkerModel",
    "TissueSettings", "choose_theta", "draw_markers", "engaged_ratio", "generate_dataset",
    "generate_sample", "generation_seconds", "graph_json", "place_cells", "radius_graph",
    "recompute_label", "roles", "tissue_program", "types_from_markers", "write_dataset",
]
