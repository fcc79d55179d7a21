"""`scripts/wombat_whiteboxes.py --tables`: the anti-IG whitebox's rows sit beside P12's
rows on the same molecules, those the whitebox explained, however many more the study
explained of P12's file."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "wombat_whiteboxes", ROOT / "scripts" / "wombat_whiteboxes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(task: str, graph: int, auroc: float) -> dict[str, Any]:
    return {"task": task, "variant": "max", "explainer": "Saliency", "config": {},
            "config_hash": "0", "seed": 0, "instance": graph, "graph": graph,
            "target": None, "status": "ok", "error": None, "precision": 1.0, "recall": 1.0,
            "f1": 1.0, "threshold": 1.0, "upi_edges": 3, "edges": 10, "cpu_seconds": 0.1,
            "wall_seconds": 0.1, "gracr_version": "0", "level": "node", "sample": "positive",
            "auroc": auroc, "average_precision": auroc, "uniform": None}


def results(folder: Path, records: list[dict[str, Any]]) -> Path:
    folder.mkdir()
    (folder / "results.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in [{"gracr-results": 3}, *records]))
    return folder


def test_p12s_rows_are_drawn_on_the_molecules_the_whitebox_explained(tmp_path: Path) -> None:
    whiteboxes = results(tmp_path / "whiteboxes", [record("WOMBAT-AntiIG", 1, 1.0),
                                                   record("WOMBAT-AntiIG", 2, 0.5)])
    # The study explained molecule 3 too, where Saliency fails; the whitebox did not.
    study = results(tmp_path / "study", [record("WOMBAT-P12", 1, 1.0),
                                         record("WOMBAT-P12", 2, 1.0),
                                         record("WOMBAT-P12", 3, 0.0)])
    text = script().tables(whiteboxes, study)
    [row] = [line for line in text.split("anti-IG whitebox")[1].splitlines()
             if line.startswith("| Saliency") and "| r1 " in line]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    # explainer, readout, AntiIG: AUROC, perfect, IQR; P12: AUROC, perfect, IQR; WOMBAT
    assert cells[2:4] == ["0.7500", "1 / 2 (50.00%)"]
    assert cells[5:7] == ["1.0000", "2 / 2 (100.00%)"]   # molecules 1 and 2 only
