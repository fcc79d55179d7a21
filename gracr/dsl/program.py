"""The checked `.gml` program: what `parse` returns and every later stage reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from gracr.data.schema import Family, Schema
from gracr.dsl import ir
from gracr.dsl.ir import Formula, Kind
from gracr.dsl.show import show_formula


@dataclass(frozen=True)
class Program:
    """A checked `.gml` program: its declarations and its classifier, in the surface IR.

    `palette` lists the colours in feature-column order, `families` the attribute
    families (each with its values) and `relations` the edge relations, all in
    declaration order. `kind` says whether the classifier labels nodes or whole
    graphs. `names` maps each `let`-bound node formula to its name, for display only.
    """

    palette: tuple[str, ...]
    classifier: Formula
    kind: Kind
    names: tuple[tuple[str, Formula], ...] = ()
    filename: str = "<string>"
    source: str = field(default="", repr=False)
    families: tuple[Family, ...] = ()
    relations: tuple[str, ...] = ()
    features: tuple[str, ...] = ()

    @property
    def schema(self) -> Schema:
        """What the graphs this program reads must carry."""
        return Schema(self.palette, self.families, self.relations, self.features)

    @property
    def modal_depth(self) -> int:
        return ir.modal_depth(self.classifier)

    def name_of(self, formula: Formula) -> str | None:
        for name, bound in self.names:
            if bound == formula:
                return name
        return None

    def show(self) -> str:
        return show_formula(self.classifier)
