"""`gracrc report`: aggregation as App. E/H say, the tables, the files, and the paper's numbers.

Expected numbers are worked out by hand in each test, never by calling the code under test.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from gracr.explainers import PAPER_EXPLAINERS
from gracr.domains.paper.published import (TABLE2, TABLE2_TASKS, TABLE3, TABLE3_TASKS,
                               TABLE14, TABLE14_EXPLAINERS)
from gracr.bench.report import (Cell, Provenance, TableSpec, aggregate, aggregate_seed_times,
                                aggregate_seeds, aggregate_times, load_inputs, load_results,
                                read_results, render_latex, render_markdown)
from gracr.domains.paper.report import beside_paper, times_table
from gracr.errors import GracrError
from gracrc_cli import run

PROVENANCE = Provenance("gracrc report out", "2025-01-01", ("0.1.0",))
TABLE2_SPEC = TableSpec("table2", "Table 2", "main", TABLE2_TASKS)
TABLE3_SPEC = TableSpec("table3", "Table 3", "main", TABLE3_TASKS)


def record(seed: int = 0, instance: int = 0, status: str = "ok", precision: float = 1.0,
           recall: float = 1.0, f1: float = 1.0, **fields: object) -> dict[str, object]:
    ok = status == "ok"
    base: dict[str, object] = {
        "task": "Redundancy", "variant": "main", "explainer": "Saliency",
        "config": {"abs": True}, "config_hash": "ab12cd34", "seed": seed, "instance": instance,
        "graph": instance, "target": None, "status": status,
        "error": "RuntimeError: boom" if status == "error" else None,
        "precision": precision if ok else None, "recall": recall if ok else None,
        "f1": f1 if ok else None, "threshold": 0.5 if ok else None, "upi_edges": 6,
        "edges": 134, "cpu_seconds": 1.0, "wall_seconds": 2.0, "gracr_version": "0.1.0"}
    base.update(fields)
    return base


def write_results(folder: Path, records: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def cells_of(tmp_path: Path, records: list[dict[str, object]]) -> list[Cell]:
    return aggregate(read_results([str(write_results(tmp_path / "run", records))]))


# ---------------------------------------------------------------- aggregation


def test_two_seeds_give_mean_and_population_std(tmp_path: Path) -> None:
    # seed 0: precision 1 and 1/2 (mean 3/4), recall 1 and 1, F1 1 and 2/3 (mean 5/6);
    # seed 1: precision 1/4 twice, recall 1/2 twice, F1 1/3 twice.
    # Over seeds: precision (3/4 + 1/4)/2 = 1/2, std |3/4 - 1/2| = 1/4 (ddof=0);
    # recall 3/4 ± 1/4; F1 (5/6 + 1/3)/2 = 7/12, std (5/6 - 1/3)/2 = 1/4.
    [cell] = cells_of(tmp_path, [
        record(0, 0, precision=1.0, recall=1.0, f1=1.0),
        record(0, 1, precision=0.5, recall=1.0, f1=2 / 3),
        record(1, 0, precision=0.25, recall=0.5, f1=1 / 3),
        record(1, 1, precision=0.25, recall=0.5, f1=1 / 3)])
    assert cell.precision is not None and cell.recall is not None and cell.f1 is not None
    assert (cell.precision.mean, cell.precision.std) == pytest.approx((0.5, 0.25))
    assert (cell.recall.mean, cell.recall.std) == pytest.approx((0.75, 0.25))
    assert (cell.f1.mean, cell.f1.std) == pytest.approx((7 / 12, 0.25))
    assert (cell.seeds, cell.instances, cell.oot_seeds, cell.errors) == (2, 4, 0, 0)
    assert not cell.partial and not cell.out_of_time
    text = render_markdown(TABLE2_SPEC, [cell], PROVENANCE)
    assert "| Saliency  | 0.50 ± 0.25          | 0.75 ± 0.25 | 0.58 ± 0.25 |" in text


def test_f1_is_averaged_sample_wise(tmp_path: Path) -> None:
    # (p, r) = (1, 0.2) and (0.2, 1): each F1 is 2*0.2/1.2 = 1/3, so the mean F1 is 1/3,
    # while the F1 of the mean precision and recall (0.6, 0.6) would be 0.6.
    [cell] = cells_of(tmp_path, [record(0, 0, precision=1.0, recall=0.2, f1=1 / 3),
                                 record(0, 1, precision=0.2, recall=1.0, f1=1 / 3)])
    assert cell.precision is not None and cell.recall is not None and cell.f1 is not None
    assert cell.precision.mean == pytest.approx(0.6) and cell.recall.mean == pytest.approx(0.6)
    assert cell.f1.mean == pytest.approx(1 / 3)


def test_a_seed_out_of_time_is_left_out_and_marked(tmp_path: Path) -> None:
    # Seeds 0 and 1 finish (precision 0.8 and 0.6 -> 0.7 ± 0.1); seed 2 explains one instance
    # (precision 0) and then runs out of time: App. H halts it, so none of it counts.
    [cell] = cells_of(tmp_path, [
        record(0, 0, precision=0.8), record(1, 0, precision=0.6),
        record(2, 0, precision=0.0), record(2, 1, status="oot")])
    assert cell.precision is not None
    assert (cell.precision.mean, cell.precision.std) == pytest.approx((0.7, 0.1))
    assert (cell.seeds, cell.oot_seeds, cell.instances) == (2, 1, 2)
    assert cell.partial and not cell.out_of_time
    assert "0.70 ± 0.10 †" in render_markdown(TABLE2_SPEC, [cell], PROVENANCE)


def test_every_seed_out_of_time_reads_oot(tmp_path: Path) -> None:
    [cell] = cells_of(tmp_path, [
        record(0, 0, task="Majority2Hop", explainer="SubgraphX", target=3),
        record(0, 1, status="oot", task="Majority2Hop", explainer="SubgraphX", target=5),
        record(1, 0, status="oot", task="Majority2Hop", explainer="SubgraphX", target=3)])
    assert cell.out_of_time and not cell.partial
    assert (cell.seeds, cell.oot_seeds, cell.precision) == (0, 2, None)
    text = render_markdown(TABLE3_SPEC, [cell], PROVENANCE)
    assert "| SubgraphX | OOT                    | OOT    | OOT |" in text


def test_error_records_are_left_out_and_counted(tmp_path: Path) -> None:
    folder = write_results(tmp_path / "run", [
        record(0, 0, precision=1.0), record(0, 1, status="error"), record(0, 2, precision=0.5)])
    [cell] = aggregate(read_results([str(folder)]))
    assert cell.precision is not None and cell.precision.mean == pytest.approx(0.75)
    assert (cell.errors, cell.instances) == (1, 2)
    code, out, _ = run("report", str(folder))
    assert code == 0
    assert "warning: 1 error record left out of the means:" in out
    assert "Redundancy / main / Saliency [ab12cd34]: 1 (first: RuntimeError: boom)" in out


def test_duplicate_keys_keep_the_last_record_and_are_counted(tmp_path: Path) -> None:
    first = write_results(tmp_path / "a", [record(0, 0, precision=0.2), record(0, 1, precision=0.4),
                                           record(0, 1, precision=0.6)])
    second = write_results(tmp_path / "b", [record(0, 0, precision=0.8)])
    loaded = load_results([str(first), str(second)])
    assert loaded.duplicates == 2
    assert sorted(r.precision or 0.0 for r in loaded.records) == [0.6, 0.8]
    [cell] = aggregate(loaded.records)
    assert cell.precision is not None and cell.precision.mean == pytest.approx(0.7)
    code, out, _ = run("report", str(first), str(second), "--out", str(tmp_path / "report"))
    assert code == 0 and "warning: 2 duplicate records" in out


def test_several_configs_are_reported_apart(tmp_path: Path) -> None:
    cells = cells_of(tmp_path, [record(0, 0, precision=0.2, config_hash="aaaa1111"),
                                record(0, 0, precision=0.8, config_hash="bbbb2222")])
    assert sorted(c.config_hash for c in cells) == ["aaaa1111", "bbbb2222"]
    text = render_markdown(TABLE2_SPEC, cells, PROVENANCE)
    assert "| Saliency [aaaa1111] | 0.20 ± 0.00" in text
    assert "| Saliency [bbbb2222] | 0.80 ± 0.00" in text
    assert "several configurations on Redundancy (aaaa1111, bbbb2222)" in text


def test_rows_follow_the_papers_order(tmp_path: Path) -> None:
    names = ["Zeta", "GraphMask-clean", "Rnd", "Alpha", "IG", "Saliency", "FlowX"]
    cells = cells_of(tmp_path, [record(0, 0, explainer=name) for name in names])
    text = render_markdown(TABLE2_SPEC, cells, PROVENANCE)
    rows = [line.split("|")[1].strip() for line in text.splitlines()[4:11]]
    assert rows == ["Saliency", "IG", "FlowX", "Rnd", "GraphMask-clean", "Alpha", "Zeta"]


# ---------------------------------------------------------------- renderings


def test_beside_the_paper_flags_large_differences(tmp_path: Path) -> None:
    # Paper, Table 2, Saliency on Redundancy: 1.00 / 1.00 / 1.00.
    cells = cells_of(tmp_path, [record(0, 0, precision=0.9, recall=0.96, f1=0.93)])
    headers, rows, notes = beside_paper(cells)
    assert headers[:5] == ["Task", "Explainer", "precision ours", "paper", "diff"]
    assert rows == [["Redundancy", "Saliency", "0.90", "1.00", "-0.10 !", "0.96", "1.00", "-0.04",
                     "0.93", "1.00", "-0.07 !"]]
    assert notes[0].startswith("2 of 3 compared values differ")


def test_times_pool_finished_instances_and_show_table_14(tmp_path: Path) -> None:
    # CPU seconds 1, 2, 3 over two seeds: mean 2, std sqrt(2/3) = 0.816; the 'oot' record's
    # time does not count, but marks the cell.
    records = [record(0, 0, explainer="GNNExplainer", cpu_seconds=1.0, wall_seconds=1.5),
               record(0, 1, explainer="GNNExplainer", cpu_seconds=2.0, wall_seconds=1.5),
               record(1, 0, explainer="GNNExplainer", cpu_seconds=3.0, wall_seconds=1.5),
               record(1, 1, status="oot", explainer="GNNExplainer", cpu_seconds=200.0)]
    time_cells = aggregate_times(read_results([str(write_results(tmp_path / "run", records))]))
    headers, rows, _ = times_table(time_cells, "main", "cpu")
    assert headers == ["Explainer", "Redundancy"]
    assert rows == [["GNNExplainer", "2.000 ± 0.816 †"]]
    _, rows, _ = times_table(time_cells, "main", "wall")
    # Table 14, Redundancy, GNNExplainer: 0.066 ± 0.002.
    assert rows == [["GNNExplainer", "1.500 ± 0.000 †"],
                    ["GNNExplainer (paper)", "0.066 ± 0.002"]]


def _latex_columns(row: str) -> int:
    cells = [cell.strip() for cell in re.split(r"(?<!\\)&", row.removesuffix(r"\\"))]
    spans = [int(m[1]) if (m := re.match(r"\\multicolumn\{(\d+)\}", c)) else 1 for c in cells]
    return sum(spans)


def test_latex_is_one_balanced_booktabs_tabular(tmp_path: Path) -> None:
    cells = cells_of(tmp_path, [
        record(0, 0, task="RedBlueLeaf-NC", explainer="SubgraphX", target=1),
        record(1, 0, status="oot", task="RedBlueLeaf-NC", explainer="SubgraphX", target=1),
        record(0, 0, status="oot", task="Majority2Hop", explainer="SubgraphX", target=1),
        record(0, 0, task="Majority1Hop", explainer="Odd_name&co", target=1)])
    tex = render_latex(TABLE3_SPEC, cells, PROVENANCE)
    assert tex.count(r"\begin{tabular}") == tex.count(r"\end{tabular}") == 1
    assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule")
    spec = re.search(r"\\begin\{tabular\}\{([lc]+)\}", tex)
    assert spec is not None and spec[1] == "l" + "c" * 9
    rows = [line for line in tex.splitlines() if line.endswith(r"\\")]
    assert len(rows) == 2 + 2 and all(_latex_columns(row) == 10 for row in rows)
    assert r"\multicolumn{3}{c}{OOT}" in tex and r"$1.00 \pm 0.00^{\dagger}$" in tex
    assert r"Odd\_name\&co" in tex
    body = "\n".join(line for line in tex.splitlines() if not line.startswith("%"))
    assert body.count("{") == body.count("}")
    assert body.count("$") % 2 == 0


def test_report_writes_every_file(tmp_path: Path) -> None:
    folder = write_results(tmp_path / "run", [
        record(0, 0), record(1, 0, precision=0.5),
        record(0, 0, variant="flat", precision=0.25),
        record(0, 0, task="Majority1Hop", explainer="GraphSVX", target=2)])
    code, out, err = run("report", str(folder))
    assert (code, err) == (0, "")
    names = {"results.csv", "table2.md", "table3.md", "table2.tex", "table3.tex",
             "beside_paper.md", "times.md", "times.csv", "precision_recall.png", "variants.md"}
    assert names <= {p.name for p in folder.iterdir()}
    assert (folder / "precision_recall.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Variant flat: graph classification" in (folder / "variants.md").read_text()
    table2 = (folder / "table2.md").read_text()
    assert f"`gracrc report {folder}` · " in table2 and " · gracr 0.1.0" in table2
    assert "Table 2: plausibility on graph classification" in out


def test_results_csv_has_exactly_the_agreed_columns(tmp_path: Path) -> None:
    folder = write_results(tmp_path / "run", [
        record(0, 0, precision=1.0), record(1, 0, precision=0.5),
        record(0, 0, status="oot", explainer="SubgraphX")])
    assert run("report", str(folder))[0] == 0
    with open(folder / "results.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["task", "variant", "explainer", "seeds", "instances", "precision",
                       "precision_std", "recall", "recall_std", "f1", "f1_std", "oot",
                       "config_hash"]
    assert rows[1] == ["Redundancy", "main", "Saliency", "2", "2", "0.75", "0.25", "1", "0",
                       "1", "0", "0", "ab12cd34"]
    assert rows[2] == ["Redundancy", "main", "SubgraphX", "0", "0", "", "", "", "", "", "",
                       "1", "ab12cd34"]


# ---------------------------------------------------------------- bad input


def test_missing_folder_exits_2(tmp_path: Path) -> None:
    code, out, err = run("report", str(tmp_path / "nope"))
    assert (code, out) == (2, "")
    assert err == f"gracrc: error: {tmp_path / 'nope'}: no such folder\n"


def test_folder_without_results_exits_2(tmp_path: Path) -> None:
    code, _, err = run("report", str(tmp_path))
    assert code == 2 and f"{tmp_path}: no results.jsonl in this folder" in err


def test_empty_results_file_exits_2(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text("\n")
    code, _, err = run("report", str(tmp_path))
    assert code == 2 and f"{tmp_path / 'results.jsonl'}: no results" in err


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", ":2: not a JSON line"),
    ("[1, 2]", ":2: not a JSON object"),
    (json.dumps({k: v for k, v in record().items() if k != "seed"}), ":2: missing field 'seed'"),
    (json.dumps(record(status="done")), ":2: field 'status' should be one of ok, oot, error"),
    (json.dumps(record(precision=1.5)), ":2: field 'precision' should be a number in [0, 1]"),
    (json.dumps({**record(), "seed": "0"}), ":2: field 'seed' should be an integer, got \"0\""),
])
def test_unreadable_line_names_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / "results.jsonl").write_text(json.dumps(record()) + "\n" + line + "\n")
    code, _, err = run("report", str(tmp_path))
    assert code == 2 and "Traceback" not in err
    assert err.startswith(f"gracrc: error: {tmp_path / 'results.jsonl'}{message}")


def test_non_utf8_line_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_bytes(json.dumps(record()).encode() + b"\n\xff\xfe\n")
    with pytest.raises(GracrError, match=r"results.jsonl:2: not UTF-8 text"):
        read_results([str(tmp_path)])


# ---------------------------------------------------------------- the paper's numbers


def test_the_transcribed_tables_have_every_cell_once() -> None:
    """Tables 2, 3 (12 explainers x 3 tasks each) and 14 as `gracr.domains.paper.published` holds them:
    every cell once, numbers where the paper prints numbers (SubgraphX on Majority2Hop
    is the one 'OOT' cell), scores in [0, 1]."""
    for tasks, table in ((TABLE2_TASKS, TABLE2), (TABLE3_TASKS, TABLE3)):
        keys = [(c.task, c.explainer) for c in table]
        assert sorted(keys) == sorted((t, e) for t in tasks for e in PAPER_EXPLAINERS)
        for cell in table:
            stats = (cell.precision, cell.recall, cell.f1)
            if cell.out_of_time:
                assert stats == (None, None, None)
                continue
            assert all(s is not None and 0 <= s.mean <= 1 and s.std >= 0 for s in stats), cell
    assert [(c.task, c.explainer) for c in TABLE3 if c.out_of_time] == [("Majority2Hop",
                                                                         "SubgraphX")]
    assert {c.explainer for c in TABLE14} == set(TABLE14_EXPLAINERS)
    assert all(c.wall_seconds.mean >= 0 for c in TABLE14)


def _mixed_records() -> list[dict[str, object]]:
    """Two explainers, three seeds; one seed out of time, one error, unequal times."""
    records = []
    for seed in range(3):
        for instance in range(4):
            records.append(record(seed, instance, precision=0.1 * (seed + instance + 1),
                                  recall=1.0 / (instance + 1), f1=0.05 * (seed + 2 * instance),
                                  cpu_seconds=0.5 + seed * instance, wall_seconds=1.0 + instance))
        records.append(record(seed, 0, explainer="IG", config_hash="99aa99aa",
                              precision=0.3 + 0.1 * seed, cpu_seconds=2.0 + seed))
    records.append(record(1, 1, explainer="IG", config_hash="99aa99aa", status="oot",
                          cpu_seconds=181.0))
    records.append(record(2, 2, explainer="IG", config_hash="99aa99aa", status="error"))
    return records


def test_a_report_from_its_seeds_csv_equals_the_report_from_the_records(tmp_path: Path) -> None:
    folder = write_results(tmp_path / "run", _mixed_records())
    assert run("report", str(folder), "--out", str(tmp_path / "a"))[0] == 0
    assert run("report", str(tmp_path / "a" / "seeds.csv"), "--out", str(tmp_path / "b"))[0] == 0
    for name in ("results.csv", "times.csv", "seeds.csv", "table2.md", "beside_paper.md"):
        first = (tmp_path / "a" / name).read_text(encoding="utf-8").splitlines()
        second = (tmp_path / "b" / name).read_text(encoding="utf-8").splitlines()
        # The provenance line names the command, which differs; nothing else may.
        assert [l for l in first if "gracrc report" not in l] == \
            [l for l in second if "gracrc report" not in l], name


def test_seeds_from_a_summary_and_from_records_merge_as_one_run(tmp_path: Path) -> None:
    records = _mixed_records()
    whole = aggregate(read_results([str(write_results(tmp_path / "all", records))]))
    whole_times = aggregate_times(read_results([str(tmp_path / "all")]))
    early = write_results(tmp_path / "early", [r for r in records if r["seed"] == 0])
    late = write_results(tmp_path / "late", [r for r in records if r["seed"] != 0])
    assert run("report", str(early), "--out", str(tmp_path / "part"))[0] == 0
    loaded = load_inputs([str(tmp_path / "part" / "seeds.csv"), str(late)])
    assert loaded.records == len(records) - 5
    assert aggregate_seeds(loaded.seeds) == whole
    merged = aggregate_seed_times(loaded.seeds)
    for ours, theirs in zip(merged, whole_times, strict=True):
        assert (ours.instances, ours.partial) == (theirs.instances, theirs.partial)
        assert ours.cpu_seconds is not None and theirs.cpu_seconds is not None
        assert ours.cpu_seconds.mean == pytest.approx(theirs.cpu_seconds.mean, abs=1e-12)
        assert ours.cpu_seconds.std == pytest.approx(theirs.cpu_seconds.std, abs=1e-12)


def test_a_seed_given_twice_is_an_error_naming_both(tmp_path: Path) -> None:
    folder = write_results(tmp_path / "run", [record(0, 0), record(1, 0)])
    assert run("report", str(folder), "--out", str(tmp_path / "a"))[0] == 0
    again = write_results(tmp_path / "again", [record(1, 3)])
    with pytest.raises(GracrError, match=r"seeds.csv:3: seed 1 of Redundancy .* also in .*again"):
        load_inputs([str(again), str(tmp_path / "a" / "seeds.csv")])
    code, _, err = run("report", str(again), str(tmp_path / "a" / "seeds.csv"),
                       "--out", str(tmp_path / "b"))
    assert code == 2 and "give each seed once" in err and "Traceback" not in err


@pytest.mark.parametrize(("edit", "message"), [
    (lambda rows: rows[:1] + [rows[1][:-1]], r"broken.csv:2: 16 fields, expected 17"),
    (lambda rows: [["task", "seed"]] + rows[1:], r"broken.csv:1: not a seed summary"),
    (lambda rows: rows[:1] + [rows[1][:8] + ["1.5"] + rows[1][9:]],
     r"broken.csv:2: field 'precision' should be a number in \[0, 1\], got '1.5'"),
    (lambda rows: rows[:1] + [rows[1][:5] + ["two"] + rows[1][6:]],
     r"broken.csv:2: field 'ok' should be a count, got 'two'"),
])
def test_a_broken_seeds_csv_names_its_line(tmp_path: Path, edit: Any, message: str) -> None:
    folder = write_results(tmp_path / "run", [record(0, 0)])
    assert run("report", str(folder), "--out", str(tmp_path / "a"))[0] == 0
    path = tmp_path / "a" / "seeds.csv"
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    broken = tmp_path / "broken.csv"
    with broken.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(edit(rows))
    with pytest.raises(GracrError, match=message):
        load_inputs([str(broken)])


def _seeds_csv_rows(tmp_path: Path, records: list[dict[str, object]]) -> list[list[str]]:
    folder = write_results(tmp_path / "run", records)
    assert run("report", str(folder), "--out", str(tmp_path / "a"))[0] == 0
    text = (tmp_path / "a" / "seeds.csv").read_text(encoding="utf-8")
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize(("column", "value", "message"), [
    # `int` refuses more than 4300 digits with a ValueError of its own: once exit 70.
    (5, "9" * 5000, r"broken.csv:3: field 'ok' should be a count, got '9{40}…'$"),
    # `isdigit` takes '²', which `int` refuses.
    (7, "²", r"broken.csv:3: field 'errors' should be a count, got '²'$"),
    # Over the csv reader's field size limit (128 KiB): once exit 70.
    (16, "x" * 200_000, r"broken.csv:3: not a seed summary: field larger than field limit"),
], ids=["5000-digit count", "superscript digit", "200000-character field"])
def test_a_huge_seeds_csv_field_is_one_message_naming_its_line(
        tmp_path: Path, column: int, value: str, message: str) -> None:
    rows = _seeds_csv_rows(tmp_path, [record(0, 0), record(1, 0)])
    rows[2][column] = value   # the second seed's row, line 3
    broken = tmp_path / "broken.csv"
    with broken.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    code, out, err = run("report", str(broken), "--out", str(tmp_path / "b"))
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert err.count("\n") == 1 and len(err) < 400
    assert re.search(message, err.strip()), err


def test_a_seeds_csv_row_after_a_line_break_in_a_field_is_named_by_its_line(
        tmp_path: Path) -> None:
    rows = _seeds_csv_rows(tmp_path, [record(0, 0, status="error",
                                             error="RuntimeError: two\nlines"),
                                      record(1, 0)])
    assert rows[1][16] == "RuntimeError: two\nlines"
    rows[2][5] = "two"
    broken = tmp_path / "broken.csv"
    with broken.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    # The first seed's row takes lines 2 and 3 of the file: the second starts on line 4.
    with pytest.raises(GracrError, match=r"broken.csv:4: field 'ok' should be a count"):
        load_inputs([str(broken)])


def test_a_long_first_error_still_gives_a_seeds_csv_the_report_reads(tmp_path: Path) -> None:
    # A seed's first error is written to seeds.csv: cut, so that the file stays readable
    # by Python's csv reader (whose field size limit is 128 KiB).
    long_error = "RuntimeError: " + "x" * 200_000
    rows = _seeds_csv_rows(tmp_path, [record(0, 0, status="error", error=long_error)])
    assert long_error.startswith(rows[1][16]) and len(rows[1][16]) == 1000
    code, _, err = run("report", str(tmp_path / "a" / "seeds.csv"), "--out", str(tmp_path / "b"))
    assert code == 0, err
