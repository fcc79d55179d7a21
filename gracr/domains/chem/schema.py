"""The one schema every molecule is read into (the molecules issue, part 1).

Heavy atoms only (RDKit's `RemoveAllHs`). Each atom takes one value in each of four
attribute families:

- `element`: the element symbols of Z = 1 … 100 (WOMBAT's one-hot), in order of Z;
- `hydrogens`: `H0` … `H9`, the atom's total hydrogen count (implicit and removed
  explicit hydrogens alike, RDKit's `GetTotalNumHs`);
- `charge`: `neg3`, `neg2`, `neg1`, `zero`, `pos1`, `pos2`, `pos3` (formal charge);
- `aromatic`: `no`, `yes` (RDKit's aromaticity perception on sanitisation).

Each bond is one edge in each direction, with relation `single`, `double`, `triple`
or `aromatic`. A molecule outside this (an atom of Z = 0 or Z > 100, ten or more
hydrogens, a charge beyond ±3, a dative or other bond type) is outside the schema.
"""

from __future__ import annotations

from gracr.data.schema import Family, Schema

# Element symbols by atomic number (index 0 is Z = 1), up to Z = 118, so that a SMARTS
# naming an element beyond the schema is still read (and matches nothing).
ELEMENT_SYMBOLS: tuple[str, ...] = tuple("""
H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As
Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu
Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np
Pu Am Cm Bk Cf Es Fm Md No Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og
""".split())

MAX_ATOMIC_NUMBER = 100
MAX_HYDROGENS = 9
MAX_CHARGE = 3

ELEMENTS = ELEMENT_SYMBOLS[:MAX_ATOMIC_NUMBER]
HYDROGENS = tuple(f"H{n}" for n in range(MAX_HYDROGENS + 1))
CHARGES = ("neg3", "neg2", "neg1", "zero", "pos1", "pos2", "pos3")
AROMATIC = ("no", "yes")
BOND_RELATIONS = ("single", "double", "triple", "aromatic")

MOLECULE_SCHEMA = Schema(
    families=(Family("element", ELEMENTS), Family("hydrogens", HYDROGENS),
              Family("charge", CHARGES), Family("aromatic", AROMATIC)),
    relations=BOND_RELATIONS)


def charge_value(charge: int) -> str:
    """The `charge` value of a formal charge in -3 … 3 (`neg2`, `zero`, `pos1`)."""
    if charge == 0:
        return "zero"
    return f"{'pos' if charge > 0 else 'neg'}{abs(charge)}"


def molecule_declarations() -> str:
    """The `.gml` declarations of `MOLECULE_SCHEMA`, one statement a line."""
    return MOLECULE_SCHEMA.declarations()
