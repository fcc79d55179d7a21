"""`gracrc report --html` and the scores kept beside the records (`scores.jsonl`), without a
browser (tests/test_html_browser.py opens the report in one): the stored scores are the
explainer's (scored again, they give the record's F1), the leaderboard's rows are the
records' cells, an instance's page shows its drawing, numbers and settings, and the report
says so where the dataset store or the stored scores are missing.

The HTML is read with the standard library's parser, never with regular expressions over
the markup.
"""

from __future__ import annotations

import json
import shutil
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from gracr.bench.datasets import load_or_build
from gracr.bench.instances import positive_instances
from gracr.bench.record import Record, read_records
from gracr.bench.scores_log import SCORES_FILE, _scores, read_scores, scores_line
from gracr.cli import main
from gracr.errors import GracrError
from gracr.explainers.metric import plausibility_at
from gracrc_cli import run

GRAPH_TASK, NODE_TASK, GRAPHS, TARGETS = "RedBlueLeaf", "RedBlueLeaf-NC", 12, 20


@pytest.fixture(scope="module")
def bench(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Saliency and Rnd on the first 2 instances of a graph task and a node task."""
    folder = tmp_path_factory.mktemp("bench")
    code, _, err = run("bench", "--tasks", f"{GRAPH_TASK},{NODE_TASK}", "--explainers",
                       "Saliency,Rnd", "--seeds", "0", "--limit", "2", "--graphs", str(GRAPHS),
                       "--targets", str(TARGETS), "--datasets", str(store), "--out",
                       str(folder), "--quiet", "--no-report")
    assert code == 0, err
    return folder


def report(bench: Path, store: Path, out: Path, *more: str) -> tuple[int, str, str]:
    return run("report", "--html", str(bench), "--datasets", str(store), "--graphs",
               str(GRAPHS), "--targets", str(TARGETS), "--out", str(out), *more)


class Page(HTMLParser):
    """The tables (rows of cell texts, by table class), links, SVGs and notes of a page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.links: list[str] = []
        self.svgs: list[str] = []          # their aria-labels
        self.notes: list[str] = []
        self.halos = 0
        self._cell: list[str] | None = None
        self._note: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "table":
            self.tables.append((named.get("class") or "", []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a" and named.get("href"):
            self.links.append(str(named["href"]))
        elif tag == "svg":
            self.svgs.append(named.get("aria-label") or "")
        elif tag == "p" and "note" in (named.get("class") or ""):
            self._note = []
        if "upi-halo" in (named.get("class") or ""):
            self.halos += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1][1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "p" and self._note is not None:
            self.notes.append("".join(self._note))
            self._note = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._note is not None:
            self._note.append(data)

    def table(self, kind: str) -> list[list[list[str]]]:
        return [rows for name, rows in self.tables if kind in name.split()]


def records_of(bench: Path) -> list[Record]:
    return list(read_records(bench / "results.jsonl"))


def test_the_stored_scores_are_the_explainers(bench: Path, store: Path) -> None:
    records = records_of(bench)
    scores, note = read_scores(bench)
    assert note is None
    assert {r.key for r in records} == set(scores)
    for record in records:
        task_size = GRAPHS if record.task == GRAPH_TASK else TARGETS
        dataset = load_or_build(record.task, 0, task_size, str(store), progress=False)
        instance = next(i for i in positive_instances(dataset) if i.index == record.instance)
        assert scores[record.key].size == record.edges
        point = plausibility_at("edge", scores[record.key], instance.upi, instance.target)
        assert point.f1 == pytest.approx(record.f1, abs=1e-6)


def test_a_score_line_reads_back_sparse_or_dense() -> None:
    record = Record("T", "main", "E", {}, "h", 0, 3, 0, None, "ok", None, 1.0, 1.0, 1.0, 0.5,
                    1, 4, 0.0, 0.0, "0")
    for values in ([0.0, 0.0, 0.25, 0.0, 0.0, 0.0], [0.5, -1.0, 2.0]):
        line = json.loads(scores_line(record, values))
        assert ("at" in line) == (values[0] == 0.0)   # sparse where most scores are 0
        assert _scores(line, "here").tolist() == values


def test_a_damaged_scores_line_names_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / SCORES_FILE).write_text('{"key":["T","main","E","h","edge","positive",0,0],'
                                        '"n":2,"f32":"AAAA"}\n')
    with pytest.raises(GracrError, match=rf"{SCORES_FILE}:1: 'f32' holds 3 bytes, not the 8"):
        read_scores(tmp_path)


def test_the_leaderboard_rows_are_the_records_cells(bench: Path, store: Path,
                                                    tmp_path: Path) -> None:
    code, out, err = report(bench, store, tmp_path)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == str((tmp_path / "report.html").resolve())
    page = Page((tmp_path / "report.html").read_text(encoding="utf-8"))
    boards = page.table("leaderboard")
    assert len(boards) == 2     # one per task
    records = records_of(bench)
    for board, task in zip(boards, (GRAPH_TASK, NODE_TASK)):
        header, *rows = board
        f1 = header.index("F1")
        shown = {row[1]: row[f1] for row in rows}
        expected = {}
        for explainer in ("Saliency", "Rnd"):
            values = [r.f1 for r in records if r.task == task and r.explainer == explainer]
            assert None not in values
            expected[explainer] = f"{np.mean(values):.2f} ± 0.00"
        assert shown == expected
    # Every explained instance has a page, linked from its row.
    pages = sorted(link for link in page.links if link.startswith("instances/"))
    assert len(pages) == 4
    assert all((tmp_path / link).is_file() for link in pages)


def test_an_instance_page_draws_the_instance_and_its_numbers(bench: Path, store: Path,
                                                             tmp_path: Path) -> None:
    assert report(bench, store, tmp_path)[0] == 0
    records = [r for r in records_of(bench) if r.task == GRAPH_TASK and r.instance == 1]
    text = (tmp_path / "instances" / f"{GRAPH_TASK}--main--s0--i1.html").read_text(
        encoding="utf-8")
    page = Page(text)
    assert len(page.svgs) == 1 + len(records)    # the ground truth, then each explainer
    # The UPI's halo under each of its edges, in every drawing (a graph task draws it all).
    assert page.halos == (1 + len(records)) * records[0].upi_edges
    numbers = page.table("numbers")
    assert [dict((row[0], row[1]) for row in table)["F1"] for table in numbers] == \
        [f"{r.f1:.3f}" for r in sorted(records, key=lambda r: r.explainer != "Saliency")]
    assert escape('"abs": true') in text  # Saliency's settings
    assert not page.notes                 # coloured: every record's scores are stored
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")


def test_a_missing_store_is_said_and_the_drill_down_left_out(bench: Path, tmp_path: Path
                                                             ) -> None:
    empty = tmp_path / "no-datasets"
    empty.mkdir()
    code, out, err = report(bench, empty, tmp_path / "report")
    assert (code, err) == (0, "")
    assert f"note: no drill-down for {GRAPH_TASK}: the dataset {GRAPH_TASK} seed 0" in out
    page = Page((tmp_path / "report" / "report.html").read_text(encoding="utf-8"))
    assert not [link for link in page.links if link.startswith("instances/")]
    missing = [note for note in page.notes if note.startswith("No drill-down")]
    assert len(missing) == 2 and all(f"under {empty} is not stored" in n for n in missing)
    assert len(page.table("leaderboard")) == 2   # the leaderboard is there all the same


def test_a_folder_without_stored_scores_draws_uncoloured(bench: Path, store: Path,
                                                         tmp_path: Path) -> None:
    older = tmp_path / "older"
    shutil.copytree(bench, older)
    (older / SCORES_FILE).unlink()
    code, _, err = report(older, store, tmp_path / "report")
    assert (code, err) == (0, "")
    page = Page((tmp_path / "report" / "instances" / f"{NODE_TASK}--main--s0--i0.html")
                .read_text(encoding="utf-8"))
    assert len(page.notes) == 2 and all("no scores stored" in n for n in page.notes)


def test_a_resumed_run_stores_scores_for_its_new_instances_and_mends_a_cut_line(
        bench: Path, store: Path, tmp_path: Path) -> None:
    older = tmp_path / "older"
    shutil.copytree(bench, older)
    # As a folder of an older gracr (no scores file), then as one a kill cut mid-line.
    (older / SCORES_FILE).unlink()
    (older / SCORES_FILE).write_text('{"key":["RedBlue')
    code, out, err = report(older, store, tmp_path / "report")
    assert (code, err) == (0, "")
    assert f"{older / SCORES_FILE}:1: the last line is cut" in out
    code, _, err = run("bench", "--tasks", GRAPH_TASK, "--explainers", "Saliency", "--seeds",
                       "0", "--limit", "3", "--graphs", str(GRAPHS), "--datasets", str(store),
                       "--out", str(older), "--quiet", "--no-report")
    assert code == 0, err
    scores, note = read_scores(older)
    assert note is None
    assert [key[2:] for key in scores] == [("Saliency", "920a3853", "edge", "positive", 0, 2)]
    code, _, err = report(older, store, tmp_path / "report")
    assert (code, err) == (0, "")
    pages = tmp_path / "report" / "instances"
    assert len(Page((pages / f"{GRAPH_TASK}--main--s0--i0.html").read_text()).notes) == 2
    assert not Page((pages / f"{GRAPH_TASK}--main--s0--i2.html").read_text()).notes


def test_a_damaged_scores_file_fails_the_report_naming_it(bench: Path, store: Path,
                                                          tmp_path: Path) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(bench, damaged)
    with open(damaged / SCORES_FILE, "a", encoding="utf-8") as handle:
        handle.write("[1, 2]\n")
    code, _, err = report(damaged, store, tmp_path / "report")
    lines = (damaged / SCORES_FILE).read_text().count("\n")
    assert code != 0
    assert err.strip() == f"gracrc: error: {damaged / SCORES_FILE}:{lines}: not a JSON object"


# ---------------------------------------------------------------- molecules


@pytest.fixture(scope="module")
def molecule_task(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """WOMBAT's pattern 12 ([!#1][CH]=O) on a handful of small molecules."""
    from gracr.domains.chem import read_smiles
    from gracr.domains.chem.datasets import DatasetSizes, wombat_dataset, write_dataset
    from gracr.domains.chem.wombat import WOMBAT_PATTERNS

    pattern = WOMBAT_PATTERNS[11]
    dataset = wombat_dataset(pattern, [read_smiles(s) for s in ("CCC=O", "OCC=O", "NCC=O")],
                             [read_smiles(s) for s in ("CCO", "CCCC", "c1ccccc1O")],
                             DatasetSizes(3, 3, 1))
    return write_dataset(tmp_path_factory.mktemp("molecules") / "P12", pattern, dataset)


@pytest.mark.parametrize("level", ["node", "edge"])
def test_molecules_are_drawn_by_rdkit_with_their_ground_truth(molecule_task: Path,
                                                              tmp_path: Path,
                                                              level: str) -> None:
    # As a WOMBAT study lays its folder out: its store inside, its task files named by its
    # settings, which the report reads (at node level; at edge level they are passed).
    bench, out = tmp_path / "bench", tmp_path / "report"
    store = bench / "datasets"
    code, _, err = run("bench", "--tasks", str(molecule_task), "--explainers", "Saliency",
                       "--variant", "max", "--level", level, "--seeds", "0", "--limit", "1",
                       "--negatives", "2", "--datasets", str(store), "--out", str(bench),
                       "--quiet", "--no-report")
    assert code == 0, err
    if level == "node":
        (bench / "settings.json").write_text(json.dumps(
            {"wombat": str(molecule_task.parent.parent), "patterns": [12]}))
        code, _, err = run("report", "--html", str(bench), "--out", str(out))
    else:
        code, _, err = run("report", "--html", str(bench), "--tasks", str(molecule_task),
                           "--datasets", str(store), "--out", str(out))
    assert (code, err) == (0, "")
    [record, *negatives] = sorted(records_of(bench), key=lambda r: r.sample != "positive")
    # WOMBAT's IQR test on the negatives, beside the scores of the positives.
    [board] = Page((out / "report.html").read_text(encoding="utf-8")).table("leaderboard")
    passed = [bool(r.uniform) for r in negatives]
    assert len(passed) == 2
    assert board[1][board[0].index("IQR pass (negatives)")] == \
        f"{sum(passed) / 2:.0%} of 2"
    suffix = "max_node" if level == "node" else "max"
    text = (out / "instances" / f"WOMBAT-P12--{suffix}--s0--i0.html").read_text(
        encoding="utf-8")
    page = Page(text)
    assert text.count('<svg class="molecule"') == 2 and not page.notes
    if level == "edge":   # each UPI edge underlined, in both drawings
        assert page.halos == 2 * record.upi_edges
    else:                 # the node UPI's atoms ringed: [!#1][CH]=O's three atoms at least
        rings = text.count('class="upi-node"')
        assert rings % 2 == 0 and rings // 2 >= 3


# ---------------------------------------------------------------- the tissue study

TISSUE = Path(__file__).resolve().parent / "fixtures" / "tissue"


@pytest.fixture
def tissue_study(tmp_path: Path) -> Path:
    """The committed tiny tissue study, with the metrics its report writes."""
    folder = tmp_path / "study"
    shutil.copytree(TISSUE / "study", folder)
    shutil.copy(TISSUE / "expected" / "metrics.jsonl", folder / "metrics.jsonl")
    return folder


def test_a_tissue_study_reports_its_metrics_and_draws_its_cells(tissue_study: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "report"
    code, printed, err = run("report", "--html", str(tissue_study), "--out", str(out))
    assert (code, err) == (0, "")
    assert printed.splitlines()[-1] == str((out / "report.html").resolve())
    metrics = [json.loads(line) for line in
               (tissue_study / "metrics.jsonl").read_text(encoding="utf-8").splitlines()]
    page = Page((out / "report.html").read_text(encoding="utf-8"))
    [board] = page.table("leaderboard")
    header, *rows = board
    ap = header.index("AP")
    shown = {(row[0], row[1], row[2]): row[ap] for row in rows}
    expected: dict[tuple[str, str, str], list[float]] = {}
    for line in metrics:
        if not line["randomised"]:
            expected.setdefault((line["model"], line["explainer"], line["config"]), []).append(
                line["AP"])
    assert set(shown) == set(expected)      # the randomised models are left out
    for key, values in expected.items():
        present = [v for v in values if v is not None]
        assert shown[key] == (f"{np.mean(present):.2f} ± {np.std(present):.2f}" if present
                              else "-")
    # A sample's page: its cells at their positions, the counterfactual set ringed in each
    # drawing, one drawing per explanation of a model that is not randomised.
    truth = {line["sample"]: line for line in
             map(json.loads, (tissue_study / "truth.jsonl").read_text().splitlines())}
    records = [r for r in read_records(tissue_study / "attributions" / "results.jsonl")
               if r.graph == 0 and "~" not in r.variant]
    text = (out / "instances" / "tissue--sample0.html").read_text(encoding="utf-8")
    sample = Page(text)
    assert len(sample.svgs) == 1 + len({r.key for r in records})
    assert text.count('class="upi-node"') == len(sample.svgs) * sum(truth[0]["counterfactual"])


def test_a_tissue_study_without_metrics_says_so(tissue_study: Path, tmp_path: Path) -> None:
    (tissue_study / "metrics.jsonl").unlink()
    code, printed, err = run("report", "--html", str(tissue_study), "--out",
                             str(tmp_path / "report"))
    assert (code, err) == (0, "")
    assert f"{tissue_study / 'metrics.jsonl'} is missing (the study's report writes it)" \
        in printed
