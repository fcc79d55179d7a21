"""The cell table of one tissue sample: what every other part of `gracr.domains.tissue` reads.

A sample is its table and nothing else: the label, the roles and the graph are all
recomputed from the table, so that a serialised table (`to_json`) is a complete record
of the sample and a reader never has to trust a flag it cannot check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

# The marker channels in the order a graph's feature vector lists them (the program's
# `features` line names them in this order too).
CHANNELS: tuple[str, ...] = ("cd8", "cd4", "ck", "ki67", "pdl1", "dapi")
CD8, CK = CHANNELS.index("cd8"), CHANNELS.index("ck")

TUMOUR, TCELL, OTHER = "tumour", "tcell", "other"
CELL_TYPES: tuple[str, ...] = (TUMOUR, TCELL, OTHER)

# The type rule a compiled model reads, as in the tissue benchmark note: types are
# defined by the markers, so that the program's `let` lines recover them exactly.
TYPE_THRESHOLD = 0.5


def types_from_markers(markers: FloatArray) -> tuple[str, ...]:
    """Each row's type by the marker rule (`ck - cd8 > 0.5`: tumour, `cd8 - ck > 0.5`:
    tcell, otherwise other), the rule the program text states."""
    rows = np.asarray(markers, dtype=np.float64).reshape(-1, len(CHANNELS))
    ck_minus_cd8 = rows[:, CK] - rows[:, CD8]
    cd8_minus_ck = rows[:, CD8] - rows[:, CK]
    return tuple(TUMOUR if a > TYPE_THRESHOLD else TCELL if b > TYPE_THRESHOLD else OTHER
                 for a, b in zip(ck_minus_cd8.tolist(), cd8_minus_ck.tolist()))


@dataclass(frozen=True, eq=False)
class CellTable:
    """One sample's cells: type, position (µm), markers and the recorded roles.

    `engaged[i]`: tumour cell i has a tcell within `label_radius_um`; `driver[i]`: tcell i
    has a tumour cell within it; `decoy[i]`: tcell i has none (and, by construction, none
    within the radius plus the generator's safety gap). The flags are a record for
    explainers and tests; `gracr.domains.tissue.radius` recomputes them from types and positions.
    """

    types: tuple[str, ...]
    x: FloatArray
    y: FloatArray
    markers: FloatArray
    engaged: BoolArray
    driver: BoolArray
    decoy: BoolArray
    side_um: float
    label_radius_um: float

    def __post_init__(self) -> None:
        n = len(self.types)
        unknown = sorted(set(self.types) - set(CELL_TYPES))
        if unknown:
            raise ValueError(f"unknown cell type {unknown[0]!r} (the types are "
                             f"{', '.join(CELL_TYPES)})")
        for name in ("x", "y", "engaged", "driver", "decoy"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"cell table: '{name}' has shape {getattr(self, name).shape}, "
                                 f"expected ({n},)")
        if self.markers.shape != (n, len(CHANNELS)):
            raise ValueError(f"cell table: 'markers' has shape {self.markers.shape}, expected "
                             f"({n}, {len(CHANNELS)})")

    @property
    def num_cells(self) -> int:
        return len(self.types)

    @property
    def positions(self) -> FloatArray:
        """The `[n, 2]` array of (x, y) in µm."""
        return np.stack([self.x, self.y], axis=1)

    def mask(self, cell_type: str) -> BoolArray:
        """Which cells have type `cell_type`."""
        return np.array([t == cell_type for t in self.types], dtype=np.bool_).reshape(-1)

    def counts(self) -> dict[str, int]:
        """Cells per type (every type named, zero included)."""
        return {t: sum(1 for u in self.types if u == t) for t in CELL_TYPES}

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of plain Python values (floats stay floats, so a JSON round
        trip is exact)."""
        return {
            "channels": list(CHANNELS),
            "side_um": float(self.side_um),
            "label_radius_um": float(self.label_radius_um),
            "type": list(self.types),
            "x": [float(v) for v in self.x.tolist()],
            "y": [float(v) for v in self.y.tolist()],
            "markers": [[float(v) for v in row] for row in self.markers.tolist()],
            "engaged": [bool(v) for v in self.engaged.tolist()],
            "driver": [bool(v) for v in self.driver.tolist()],
            "decoy": [bool(v) for v in self.decoy.tolist()],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CellTable:
        """The table `to_json` wrote; raises `ValueError` on a missing key or wrong shape."""
        missing = [k for k in ("type", "x", "y", "markers", "engaged", "driver", "decoy",
                               "side_um", "label_radius_um") if k not in data]
        if missing:
            raise ValueError(f"cell table: missing key {missing[0]!r}")
        channels = data.get("channels", list(CHANNELS))
        if list(channels) != list(CHANNELS):
            raise ValueError(f"cell table: channels {list(channels)} differ from "
                             f"{list(CHANNELS)}")
        n = len(data["type"])
        markers = np.asarray(data["markers"], dtype=np.float64).reshape(n, len(CHANNELS))
        return cls(types=tuple(str(t) for t in data["type"]),
                   x=np.asarray(data["x"], dtype=np.float64).reshape(-1),
                   y=np.asarray(data["y"], dtype=np.float64).reshape(-1),
                   markers=markers,
                   engaged=np.asarray(data["engaged"], dtype=np.bool_).reshape(-1),
                   driver=np.asarray(data["driver"], dtype=np.bool_).reshape(-1),
                   decoy=np.asarray(data["decoy"], dtype=np.bool_).reshape(-1),
                   side_um=float(data["side_um"]),
                   label_radius_um=float(data["label_radius_um"]))
