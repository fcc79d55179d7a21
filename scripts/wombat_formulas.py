"""Write gracr/formulas/wombat/P01.gml ... P14.gml from WOMBAT's relaxed SMARTS.

    PYTHONPATH=. python scripts/wombat_formulas.py

tests/test_chem_smarts.py checks that the files are what this writes.
"""

from __future__ import annotations

from pathlib import Path

from gracr.domains.chem.wombat import write_wombat_formulas

if __name__ == "__main__":
    folder = Path(__file__).resolve().parent.parent / "gracr" / "formulas" / "wombat"
    for path in write_wombat_formulas(folder):
        print(path.relative_to(folder.parent.parent.parent))
