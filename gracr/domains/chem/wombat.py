"""WOMBAT's 14 motifs (App. H.1 of the WOMBAT paper): each KRFP SMARTS and its relaxed form.

The relaxed form is what WOMBAT's whitebox detects and what `gracr/formulas/wombat/
Pnn.gml` compiles (`write_wombat_formulas`, `scripts/wombat_formulas.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gracr.domains.chem.smarts import parse_smarts
from gracr.domains.chem.translate import smarts_to_gml


@dataclass(frozen=True)
class WombatPattern:
    number: int
    original: str
    relaxed: str

    @property
    def name(self) -> str:
        return f"P{self.number:02d}"

    @property
    def size(self) -> int:
        """WOMBAT's "pattern size" (Figure S7(a)): the heavy atoms of the KRFP SMARTS
        with every wildcard taken as a carbon, i.e. every atom it writes (none of the 14
        writes a hydrogen atom; a hydrogen count is not an atom)."""
        return len(parse_smarts(self.original, where=self.name).atoms)


WOMBAT_PATTERNS = tuple(WombatPattern(number, original, relaxed) for number, original, relaxed in [
    (1, "[!#1][CH]([NH]C(=O)[!#1])C(Cl)(Cl)Cl", "[CHD3]([NH][CD3](=O))C(Cl)(Cl)Cl"),
    (2, "[!#1][CH]([!#1])C(=O)[CH2]C([CH3])([CH3])[CH2]C([!#1])([!#1])[!#1]",
     "[CHD3]C(=O)[CH2]C([CH3])([CH3])[CH2][CD4]"),
    (3, "[!#1][CH]([!#1])C(=O)[NH][NH]C(=O)[CH2][CH2][CH2][CH2][CH2][CH2][CH3]",
     "[CHD3]C(=O)[N;H1,H2][N;H1,H2]C(=O)[CH2][CH2][CH2][CH2][CH2][CH2][CH3]"),
    (4, "[!#1][CH]([!#1])C(=O)O[CH2][CH2]N([CH2][CH3])[CH2][CH3]",
     "[CHD3]C(=O)O[CH2][CH2]N([CH2][CH3])[CH2][CH3]"),
    (5, "[!#1][CH]([CH2]C(=N[NH]C(=O)[!#1])[!#1])C(=O)[OH]",
     "[CHD3]([CH2][CD3](=N[N;H1,H2][CD3](=O)))C(=O)[OH]"),
    (6, "[!#1][CH]([!#1])[CH]([!#1])[!#1]", "[CHD3][CHD3]"),
    (7, "[!#1][CH]([!#1])[CH2][CH2][CH3]", "[CHD3][CH2][CH2][CH3]"),
    (8, "[!#1][CH]([!#1])[CH2]C(=O)[!#1]", "[CHD3][CH2][CD3](=O)"),
    (9, "[!#1][CH]([!#1])S(=O)(=O)[!#1]", "[CHD3][SD4](=O)(=O)"),
    (10, "[!#1][CH]([!#1])[!#1]", "[!#1][CH]([!#1])[!#1]"),
    (11, "[!#1][CH]([!#1])[CH3]", "[!#1][CH]([!#1])[CH3]"),
    (12, "[!#1][CH]=O", "[!#1][CH]=O"),
    (13, "[!#1][N+]([CH3])([CH3])[CH3]", "[!#1][N+]([CH3])([CH3])[CH3]"),
    (14, "[!#1][CH2]Cl", "[!#1][CH2]Cl"),
])


def wombat_formula_text(pattern: WombatPattern) -> str:
    """The `.gml` file of a pattern: where it comes from, then `smarts_to_gml`."""
    header = (f"# WOMBAT pattern {pattern.number} (App. H.1 of the WOMBAT paper), relaxed.\n"
              f"# KRFP SMARTS: {pattern.original}\n"
              f"# written by scripts/wombat_formulas.py; do not edit by hand\n")
    return header + smarts_to_gml(pattern.relaxed, where=pattern.name)


def wombat_formula_path(pattern: WombatPattern) -> Path:
    """Where the package keeps the pattern's `.gml` file."""
    return Path(str(resources.files("gracr").joinpath(f"formulas/wombat/{pattern.name}.gml")))


def write_wombat_formulas(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for pattern in WOMBAT_PATTERNS:
        path = folder / f"{pattern.name}.gml"
        path.write_text(wombat_formula_text(pattern), encoding="utf-8")
        written.append(path)
    return written
