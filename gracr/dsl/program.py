"""The checked `.gml` program: what `parse` returns and every later stage reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from gracr.data.schema import Family, Schema
from gracr.dsl import ir
from gracr.dsl.ir import Formula, Kind
from gracr.dsl.show import show_formula


@dataclass(frozen=True)
class Program:
    """A checked `.gml` program: its declarations (`schema`: colours in feature-column
    order, attribute families, relations, numeric features, all in declaration order) and
    its classifier, in the surface IR. `kind` says whether the classifier labels nodes or whole
    graphs. `names` maps each `let`-bound node formula to its name, for display only.
    """

    schema: Schema
    classifier: Formula
    kind: Kind
    names: tuple[tuple[str, Formula], ...] = ()
    filename: str = "<string>"
    source: str = field(default="", repr=False)

    # Read by many callers; the declarations themselves live once, in `schema`.
    @property
    def palette(self) -> tuple[str, ...]:
        return self.schema.palette

    @property
    def families(self) -> tuple[Family, ...]:
        return self.schema.families

    @property
    def relations(self) -> tuple[str, ...]:
        return self.schema.relations

    @property
    def features(self) -> tuple[str, ...]:
        """The numeric features (`features cd8, ck`)."""
        return self.schema.features

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
