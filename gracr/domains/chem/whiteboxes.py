"""Two whiteboxes of the WOMBAT paper outside its 14, compiled here from their rules:

- **fluorine and carbonyl** (App. F.2, Table S2): a molecule has a fluorine bonded to a
  heavy atom (`[!#1]F`) and a carbonyl (`[#6]=O`). WOMBAT hand-weights it as one
  GINEConv layer and an MLP readout; here the rule is a sentence, compiled like every
  pattern (a different network: the question Table S2 asks is how the explainers fare on
  another architecture for the same rule, and this is ours);
- **anti-IG** (App. F.3.4): pattern 12 (`[!#1][CH]=O`) as six layers whose extra
  activations C1..C5 ("has a neighbour", passed on) change no answer on a molecule but
  give every atom a path into the decision: A1 a CH carbon with a single (or aromatic)
  bond, B1 an oxygen with a bond, C1 any atom with a bond; A(i+1) = Ai with a Ci
  neighbour, B(i+1) and C(i+1) likewise; A6 = A5 with a double bond to a B5. Written
  as that sentence, the compiler keeps the layers: a model of pattern 12's rule with
  the redundant propagation WOMBAT built in by hand. The atoms are read as P12's relaxed
  SMARTS reads them (aliphatic C and O).

`scripts/wombat_whiteboxes.py` writes their datasets; `docs/results/wombat_explainers.md`
runs and reports them.
"""

from __future__ import annotations

from gracr.domains.chem.schema import molecule_declarations

FLUORINE_CARBONYL = "S2"
ANTI_IG = "AntiIG"
# The SMARTS whose ECFP4 decides hard negatives (Tversky, `gracr.domains.chem.datasets`):
# the two motifs, their wildcard a carbon.
FLUORINE_CARBONYL_FINGERPRINT = "CF.C=O"

_FLUORINE_CARBONYL = """
let fluorine = element=F & <1> true    # [!#1]F: a fluorine with a (heavy) neighbour
let carbonyl = element=O & <1>{double} element=C    # [#6]=O
classify (exists fluorine) & (exists carbonyl)
"""


def _anti_ig() -> str:
    lines = ["let a1 = ((element=C & aromatic=no) & hydrogens=H1) & <1>{single, aromatic} true",
             "let b1 = (element=O & aromatic=no) & <1> true",
             "let c1 = <1> true"]
    for layer in range(2, 6):
        before = layer - 1
        lines += [f"let a{layer} = a{before} & <1> c{before}",
                  f"let b{layer} = b{before} & <1> c{before}",
                  f"let c{layer} = c{before} & <1> c{before}"]
    lines += ["let a6 = a5 & <1>{double} b5", "classify exists a6"]
    return "\n" + "\n".join(lines) + "\n"


def whitebox_formula(name: str) -> str:
    """The `.gml` text of the whitebox `name` (`FLUORINE_CARBONYL` or `ANTI_IG`)."""
    bodies = {FLUORINE_CARBONYL: ("WOMBAT App. F.2 (Table S2): [!#1]F and [#6]=O in one "
                                  "molecule", _FLUORINE_CARBONYL),
              ANTI_IG: ("WOMBAT App. F.3.4: pattern 12 as the six-layer anti-IG whitebox",
                        _anti_ig())}
    title, body = bodies[name]
    return (f"# {title}\n# written by scripts/wombat_whiteboxes.py; do not edit by hand\n"
            + molecule_declarations() + body)
