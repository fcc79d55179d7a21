"""Molecules drawn as chemists draw them, for the HTML report (`gracrc report --html`): a
graph of `MOLECULE_SCHEMA` is rebuilt as an RDKit molecule (its atoms' element, charge,
hydrogens and aromaticity, its bonds' types) and drawn with RDKit's 2D depiction
(`rdDepictor.Compute2DCoords`, `MolDraw2DSVG`); an explainer's scores highlight the atoms
(node level) or bonds (edge level: the higher of a bond's two directions) light yellow to
red, and the UPI is ringed (atoms) or underlined (bonds) in orange, as
`gracr.bench.report.html_graph` marks it on other graphs. `MOLECULES` is the
`gracr.bench.report.html_graph.Depiction` the command hands the report.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from gracr.bench.report.drawing import UPI_HALO, score_range, score_share
from gracr.bench.report.html_graph import SIZE, Drawing, score_text
from gracr.data.graph import Graph
from gracr.domains.chem.schema import BOND_RELATIONS


def is_molecule(graph: Graph) -> bool:
    """Whether `graph` is a molecule of `MOLECULE_SCHEMA` (its four atom families, bond
    relations)."""
    families = ("element", "hydrogens", "charge", "aromatic")
    return all(name in graph.attributes for name in families) and \
        graph.relations is not None and set(graph.relations) <= set(BOND_RELATIONS)


def _heat(share: float) -> tuple[float, float, float]:
    """Light yellow (low) to red (high): seen under RDKit's black bonds and atom labels."""
    return (1.0, 0.95 - 0.75 * share, 0.6 - 0.6 * share)


def _molecule(graph: Graph) -> Any:
    from rdkit import Chem

    types = {"single": Chem.BondType.SINGLE, "double": Chem.BondType.DOUBLE,
             "triple": Chem.BondType.TRIPLE, "aromatic": Chem.BondType.AROMATIC}
    mol = Chem.RWMol()
    for v in range(graph.num_nodes):
        atom = Chem.Atom(graph.attributes["element"][v])
        charge = graph.attributes["charge"][v]
        atom.SetFormalCharge(0 if charge == "zero" else
                             (1 if charge.startswith("pos") else -1) * int(charge[-1]))
        atom.SetNumExplicitHs(int(graph.attributes["hydrogens"][v][1:]))
        atom.SetNoImplicit(True)
        atom.SetIsAromatic(graph.attributes["aromatic"][v] == "yes")
        mol.AddAtom(atom)
    assert graph.relations is not None
    for edge in range(graph.num_edges):
        source, target = int(graph.sources[edge]), int(graph.targets[edge])
        if mol.GetBondBetweenAtoms(source, target) is None:
            mol.AddBond(source, target, types[graph.relations[edge]])
            if graph.relations[edge] == "aromatic":
                mol.GetBondBetweenAtoms(source, target).SetIsAromatic(True)
    built = mol.GetMol()
    try:
        Chem.SanitizeMol(built)
    except Exception:   # RDKit raises several types; drawn unsanitised then
        built.UpdatePropertyCache(strict=False)
    return built


def molecule_svg(drawing: Drawing, label: str) -> str:
    """The SVG of a molecule (`is_molecule`) with its scores and UPI (module docstring)."""
    from rdkit.Chem import rdDepictor
    from rdkit.Chem.Draw import rdMolDraw2D

    graph = drawing.graph
    mol = _molecule(graph)
    rdDepictor.Compute2DCoords(mol)
    drawer = rdMolDraw2D.MolDraw2DSVG(SIZE, SIZE)
    atoms: dict[int, tuple[float, float, float]] = {}
    bonds: dict[int, tuple[float, float, float]] = {}
    tips: list[str] = []
    if drawing.node_scores is not None:
        span = score_range(drawing.node_scores)
        for node, score in zip(drawing.nodes, drawing.node_scores):
            atoms[node] = _heat(score_share(score, span))
            tips.append(f"atom {node}: score {score_text(score)}")
    if drawing.edge_scores is not None:
        span = score_range(drawing.edge_scores)
        best: dict[int, float] = {}
        for edge, score in zip(drawing.edges, drawing.edge_scores):
            bond = mol.GetBondBetweenAtoms(int(graph.sources[edge]), int(graph.targets[edge]))
            index = bond.GetIdx()
            best[index] = max(best.get(index, -math.inf), score)
        for index, score in best.items():
            bonds[index] = _heat(score_share(score, span))
            tips.append(f"bond {index}: score {score_text(score)} (the higher of its two "
                        "directions)")
    drawer.DrawMolecule(mol, highlightAtoms=list(atoms), highlightAtomColors=atoms,
                        highlightBonds=list(bonds), highlightBondColors=bonds)
    marks = []
    for position, node in enumerate(drawing.nodes):
        if drawing.upi_nodes and drawing.upi_nodes[position]:
            point = drawer.GetDrawCoords(node)
            marks.append(f'<circle class="upi-node" cx="{point.x:.1f}" cy="{point.y:.1f}" '
                         f'r="13" fill="none" stroke="{UPI_HALO}" stroke-width="3">'
                         f'<title>atom {node}, in the UPI</title></circle>')
    for position, edge in enumerate(drawing.edges):
        if drawing.upi_edges and drawing.upi_edges[position]:
            a = drawer.GetDrawCoords(int(graph.sources[edge]))
            b = drawer.GetDrawCoords(int(graph.targets[edge]))
            marks.append(f'<line class="upi-halo" x1="{a.x:.1f}" y1="{a.y:.1f}" '
                         f'x2="{b.x:.1f}" y2="{b.y:.1f}" stroke="{UPI_HALO}" '
                         'stroke-opacity="0.45" stroke-width="7"/>')
    drawer.FinishDrawing()
    text: str = drawer.GetDrawingText()
    body = text[text.index("<svg"):]
    opening = body.index(">") + 1
    title = f"<title>{escape(label)}" + ("; " + "; ".join(tips) if tips else "") + "</title>"
    body = (body[:opening].replace("<svg", f'<svg class="molecule" role="img" '
                                   f'aria-label="{escape(label)}"', 1)
            + title + body[opening:])
    return body.replace("</svg>", "".join(marks) + "</svg>")


class MoleculeDepiction:
    """The `Depiction` of molecules for the HTML report (module docstring)."""

    def draws(self, graph: Graph) -> bool:
        return is_molecule(graph)

    def svg(self, drawing: Drawing, label: str) -> str:
        return molecule_svg(drawing, label)

    def legend(self, level: str) -> str:
        return ("The molecule as RDKit depicts it; the UPI in orange (ringed atoms at node "
                "level, underlined bonds at edge level); scores highlight the "
                + ("atoms" if level == "node" else "bonds (the higher of a bond's two "
                   "directions)") + " light yellow (the drawing's lowest) to red (its "
                "highest).")


MOLECULES = MoleculeDepiction()
