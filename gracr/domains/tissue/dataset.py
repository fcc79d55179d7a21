"""A tissue dataset on disk: graph JSON per sample, the cell tables, the program and the
task file gracr reads.

The program states the rule of the tissue benchmark note in gracr's language: the types
come from the markers, a tumour cell is engaged iff a near edge brings it a tcell, and the
sample is positive iff more than θ of its tumour cells are engaged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Iterator, Sequence

from gracr.bench.task_writer import DatasetTable, FileGraphs, TaskFile, task_file_text
from gracr.errors import GracrError, os_error_message
from gracr.files import atomic_writer, output_target
from gracr.domains.tissue.radius import radius_graph, relations_of, theta_fraction
from gracr.domains.tissue.table import CHANNELS, CellTable
from gracr.domains.tissue.radius import FAR, NEAR

PROGRAM_FILE, TASK_FILE = "tissue.gml", "tissue.toml"
GRAPHS_FILE, CELLS_FILE = "graphs.jsonl", "cells.jsonl"


def theta_text(theta: float) -> str:
    """θ as the program writes it: the shortest decimal that reads back as `theta`."""
    fraction = theta_fraction(theta)
    if fraction.denominator == 1:
        return str(fraction.numerator)
    text = repr(float(theta))
    if "e" in text or "E" in text:
        raise ValueError(f"θ = {theta} has no short decimal form")
    return text


def tissue_program(theta: float) -> str:
    """The program text for a dataset's θ (gracr's `.gml`)."""
    return (f"features {', '.join(CHANNELS)}\n"
            f"relations {NEAR}, {FAR}\n"
            f"let tumour = ck - cd8 > 0.5\n"
            f"let tcell  = cd8 - ck > 0.5\n"
            f"let engaged = tumour & <1>{{{NEAR}}} tcell\n"
            f"classify count(engaged) > {theta_text(theta)} * count(tumour)\n")


def graph_json(table: CellTable, theta: float, ratio: float) -> dict[str, Any]:
    """gracr's graph JSON of one sample: marker features and the (x, y) position in µm
    per node, the radius graph at `ratio` times the label radius (both directions,
    relation and length per edge), and the cell table and θ as `x-` annotations."""
    edges, distances = radius_graph(table, ratio)
    return {
        "num_nodes": table.num_cells,
        "features": [[float(v) for v in row] for row in table.markers.tolist()],
        "pos": [[float(x), float(y)] for x, y in table.positions.tolist()],
        "edges": [[int(s), int(t)] for s, t in edges.tolist()],
        "relations": list(relations_of(distances, table.label_radius_um)),
        "edge_attr": [[float(d)] for d in distances.tolist()],
        "x-cells": table.to_json(),
        "x-theta": float(theta),
    }


def tissue_task(count: int, name: str = "Tissue") -> TaskFile:
    """The task file: the program beside it and the graphs taken as they are; `name` is
    the task's name in results (distinct per dataset a run explains)."""
    return TaskFile(name=name, formulas=(PROGRAM_FILE,), graphs=FileGraphs(GRAPHS_FILE),
                    dataset=DatasetTable(graphs=count))


DATASET_FILES = (GRAPHS_FILE, CELLS_FILE, PROGRAM_FILE, TASK_FILE)   # the task file last


GraphView = Callable[[dict[str, Any]], dict[str, Any]]


def dataset_files(tables: Sequence[CellTable], theta: float, ratio: float,
                  name: str = "Tissue", view: GraphView | None = None
                  ) -> dict[str, Callable[[], Iterator[str]]]:
    """Each of `DATASET_FILES` and a function giving its text in pieces (a graph file of
    large samples runs to hundreds of megabytes: it is never held whole); `view`, when
    given, rewrites each graph JSON (`gracr.domains.tissue.image.image_graph_json`)."""
    def lines(row: Callable[[CellTable], dict[str, Any]]) -> Callable[[], Iterator[str]]:
        return lambda: (json.dumps(row(table), separators=(",", ":")) + "\n"
                        for table in tables)

    def graph(table: CellTable) -> dict[str, Any]:
        made = graph_json(table, theta, ratio)
        return made if view is None else view(made)

    return {GRAPHS_FILE: lines(graph),
            CELLS_FILE: lines(lambda table: table.to_json()),
            PROGRAM_FILE: lambda: iter([tissue_program(theta)]),
            TASK_FILE: lambda: iter([task_file_text(tissue_task(len(tables), name))])}


def holds_text(path: Path, pieces: Iterable[str]) -> bool:
    """Whether the regular file `path` holds exactly the text of `pieces` (read as it
    goes; `GracrError` if `path` is not a regular file)."""
    try:
        with open(output_target(path), encoding="utf-8", newline="") as handle:
            return all(handle.read(len(piece)) == piece for piece in pieces) \
                and handle.read(1) == ""
    except UnicodeDecodeError:
        return False
    except OSError as error:
        raise GracrError(os_error_message(error, str(path))) from None


def write_dataset(folder: str | Path, tables: Sequence[CellTable], theta: float,
                  ratio: float, name: str = "Tissue", skip: Collection[str] = (),
                  view: GraphView | None = None) -> Path:
    """Write `graphs.jsonl` (each graph through `view`, when given), `cells.jsonl`,
    `tissue.gml` and `tissue.toml` (the task `name`) but those named in `skip` into
    `folder` (created if needed), each whole or not at all and the task file last, so
    that a task file on disk says its dataset is complete; returns its path."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    for file_name, pieces in dataset_files(tables, theta, ratio, name, view).items():
        if file_name not in skip:
            with atomic_writer(root / file_name) as out:
                for piece in pieces():
                    out.write(piece)
    return root / TASK_FILE


def write_new_dataset(folder: Path, tables: Sequence[CellTable], theta: float,
                      ratio: float) -> list[str]:
    """`write_dataset` into `folder`, overwriting nothing: a file already there is kept
    only if it holds what would be written (the same `gracrc tissue` run again), any other
    is refused (`GracrError`). Returns the names of the files that were already there."""
    files = dataset_files(tables, theta, ratio)
    taken = [name for name in DATASET_FILES if os.path.lexists(folder / name)]
    for name in taken:
        if not holds_text(folder / name, files[name]()):
            raise GracrError(f"{folder / name}: already exists and holds another dataset; "
                             f"gracrc tissue overwrites nothing: choose another --out or "
                             f"remove it first")
    try:
        write_dataset(folder, tables, theta, ratio, skip=taken)
    except OSError as error:
        raise GracrError(os_error_message(error, str(folder))) from None
    return taken
