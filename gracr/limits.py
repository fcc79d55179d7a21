"""The limits gracr puts on its input, each in one place, and the byte counts its messages print.

`MAX_NESTING`: a formula nests at most this many operators deep. The checker, the
evaluator, the desugarer, the BDD build and pickling walk a formula by recursion over
its syntax, at most a few Python frames a level, so at this depth they all fit in
Python's default recursion limit (1000) with room left for the caller's own frames (the
walks over the core IR and the printer use explicit stacks). The limit counts the IR,
so a `let` name counts the depth of its body, and a chain `a & b & c ...` one level per
operator (the parser nests it to the left); grouping a chain in parentheses,
`(a & b & c) & (d & e & f)`, makes it shallower.

`MAX_COUNT`: the largest count a modality or `exists` may name. Weights are float32,
whose integers are exact up to 2**24; a threshold beyond it would be rounded.

`MAX_DECLARED_NAMES`: one declaration lists at most this many names (a `colors`,
`relations` or `features` line, one `attribute` family's values). Each name becomes a
column of `x` or an edge type; a real program declares tens. The text of a longer line
is read (linearly) but refused, with its place, before anything is built from it.

`FLOAT32_MAX`: the largest magnitude of a weight, of a numeric feature and of a
threshold unit's pre-activation (float32's largest finite number). Every executor holds
`x` and the weights in float32 and the torch ones compute in it, so a threshold atom whose
weight a/δ lies beyond it (`--delta 1e-39`) is refused at compile, a graph feature beyond
it at the graph check, and a graph whose features times a model's weights reach it
(`CompiledGNN.features`) when it meets that model: past it, float32 has only inf and NaN.

`DEFAULT_MAX_BYTES`: the default budget for the dense arrays gracr builds for one model
(its weights) or one graph (its features, the numpy forward pass, the evaluation, the
ROBDD build). Each is estimated from sizes known beforehand, so an input over budget is
refused before anything is allocated.

`MAX_TASK_NESTING`: a task file's tables, arrays, inline tables and dotted keys nest at
most this deep (the deepest the format needs is 4: `[graphs]` `attributes = { element =
{ C = 0.7 } }`). Python's TOML reader recurses on arrays and inline tables and takes time
and memory quadratic in a dotted key's length, so the text is measured before it is read.

`MAX_TASK_GRAPH`: one graph a task file's `[graphs]` table draws has at most this many
nodes (the background's largest size plus every planted copy's nodes), and its plants
add at most this many edges; a benchmark graph has tens. Both are known from the task
file alone, so a task that would draw a graph too large is refused when it is read.

`MAX_SECONDS`: a time budget (`--budget`) is at most this many seconds (about 31 years).
The budget is armed with `setitimer`, which refuses a time past what the platform's
`time_t` holds in nanoseconds (about 9.2e9 s), so a larger budget is refused when given.

`MAX_SEEDS`: a seed list (`--seeds 0-4`, `0,2,5`) names at most this many seeds (each
seed is a dataset built and explained); a range is measured before it is expanded, so
`0-100000000000` is refused without being built. `SEED_LIMIT`: every seed is below it
(2**32), the range numpy's and torch's seeding functions take.

`MAX_MOLECULE_ATOMS`: a molecule (`gracr.domains.chem`) has at most this many atoms as RDKit
parses it, explicit hydrogens included; a larger record is skipped, named, before RDKit
sanitises it. Drug-like molecules have tens of heavy atoms; the limit leaves room for
peptides and small proteins while keeping one record's graph, and RDKit's substructure
search on it, small.

`MAX_SMARTS_ATOMS`, `MAX_SMARTS_BRANCHES`: a SMARTS that `gracr.domains.chem` reads has at most
this many atoms, and each of its atoms at most this many bonds (its branches, the bond
onward and the one from its parent); both are checked while the SMARTS is read. They
bound what the parser and the translation walk and enumerate (Hall's condition splits an
atom's n bonds among the relations in up to C(n+3, 3) ways) before the translation is
checked against `MAX_NESTING`, in practice the tighter bound (it refuses a chain of
more than 65 atoms, more than 6 different branches at one atom); WOMBAT's patterns have
at most 16 atoms.

`MAX_TISSUE_CELLS`, `MAX_TISSUE_SAMPLES`, `MAX_TISSUE_RATIO`: `gracrc tissue` and
`tissue-study` draw at most this many cells per sample and this many samples, with a graph
radius at most this many label radii. The note's samples have hundreds to a few thousand
cells; the generator's memory and time grow with cells × samples and its radius graphs'
edges with the square of the ratio, so values beyond these are refused before anything
is drawn (a 20-digit `--cells` once reached numpy as "lam value too large").

`RAY_TIMEOUT`: the seconds a command with `--engine ray --address ADDR` waits for the
cluster at ADDR to accept a connection (`--ray-timeout` changes it). Ray itself would
retry for ever; a cluster whose head is up answers at once, one still starting within
seconds.
"""

from __future__ import annotations

import re

MAX_NESTING = 100
MAX_COUNT = 2**24
MAX_DECLARED_NAMES = 10_000
FLOAT32_MAX = 3.4028234663852886e38
DEFAULT_MAX_BYTES = 4 * 2**30
MAX_TASK_NESTING = 32
MAX_TASK_GRAPH = 10**6
MAX_SECONDS = 10**9
MAX_SEEDS = 100_000
SEED_LIMIT = 2**32
MAX_MOLECULE_ATOMS = 10_000
MAX_SMARTS_ATOMS = 200
MAX_SMARTS_BRANCHES = 16
RAY_TIMEOUT = 30.0
MAX_TISSUE_CELLS = 100_000
MAX_TISSUE_SAMPLES = 100_000
MAX_TISSUE_RATIO = 10.0


def format_bytes(size: int) -> str:
    """`size` bytes in binary units: `596 GiB`, `4 GiB`, `1.5 MiB`, `12 bytes`."""
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        value /= 1024
        if value < 1024 or unit == "EiB":
            break
    return f"{value:.3g} {unit}" if value < 1000 else f"{value:.0f} {unit}"


_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def parse_bytes(text: str) -> int:
    """A byte count as a user writes it: `4294967296`, `4GiB`, `4G`, `512MiB`, `1.5g`
    (units binary); `ValueError` naming the text otherwise."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if match is None or len(match.group(1)) > 30:
        raise ValueError(f"not a byte count: {text!r} (write e.g. 4294967296, 4GiB or 512MiB)")
    size = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if size <= 0:
        raise ValueError(f"a byte count must be positive, got {text!r}")
    return size
