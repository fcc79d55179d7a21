"""What a program declares about the graphs it reads: colours, attribute families, numeric
features, relations.

A node has a set of colours (the `colors` family, multi-hot), exactly one value in
each declared attribute family (one-hot) and one real number per declared numeric
feature (`features cd8, ck`); an edge has exactly one relation when relations are
declared. The feature matrix `x` that every executor reads holds, in this order: the
colours in palette order, then each family's one-hot block in declaration order
(values in declaration order), then the numeric features in declaration order, then —
when the model was compiled with the presence bit — one `present` column (1 for every
node of a graph).
"""

from __future__ import annotations

from dataclasses import dataclass

PRESENT = "present"


@dataclass(frozen=True)
class Family:
    """One attribute family: a name and its values, each node taking exactly one."""

    name: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Schema:
    """The declarations a graph must fit: palette, attribute families, relations, numeric
    features."""

    palette: tuple[str, ...] = ()
    families: tuple[Family, ...] = ()
    relations: tuple[str, ...] = ()
    features: tuple[str, ...] = ()

    @property
    def family_names(self) -> tuple[str, ...]:
        return tuple(family.name for family in self.families)

    @property
    def num_features(self) -> int:
        """Columns of `x` before the optional presence bit."""
        return len(self.palette) + sum(len(f.values) for f in self.families) + \
            len(self.features)

    def feature_names(self, presence: bool = False) -> tuple[str, ...]:
        """The meaning of each column of `x`: `red`, `element=C`, ..., `present`."""
        names = list(self.palette)
        for family in self.families:
            names.extend(f"{family.name}={value}" for value in family.values)
        names.extend(self.features)
        if presence:
            names.append(PRESENT)
        return tuple(names)

    def declarations(self) -> str:
        """These declarations as `.gml` statements, one a line (empty lists left out)."""
        lines = [*([f"colors {', '.join(self.palette)}"] if self.palette else []),
                 *[f"attribute {family.name} = {', '.join(family.values)}"
                   for family in self.families],
                 *([f"relations {', '.join(self.relations)}"] if self.relations else []),
                 *([f"features {', '.join(self.features)}"] if self.features else [])]
        return "".join(line + "\n" for line in lines)

    def declaration_problem(self) -> str | None:
        """Why no `.gml` program could declare these, or None. Colours, attribute families (each with its own values) and
        relations are separate namespaces, as in the language (`attribute aromatic =
        no, yes` beside `relations single, aromatic`, as every SMARTS translation
        declares): each list is free of repeats, and a numeric feature is no colour,
        family or value (its name alone is an atom's operand)."""
        lists = [("colour", self.palette), ("attribute family", self.family_names),
                 ("relation", self.relations), ("numeric feature", self.features)]
        lists += [(f"value of '{f.name}'", f.values) for f in self.families]
        for what, names in lists:
            seen: set[str] = set()
            for name in names:
                if name in seen:
                    return f"{what} '{name}' is declared twice"
                seen.add(name)
        taken = {**{c: "a colour" for c in self.palette},
                 **{v: f"a value of '{f.name}'" for f in self.families for v in f.values},
                 **{f.name: "an attribute family" for f in self.families}}
        for feature in self.features:
            if feature in taken:
                return f"the numeric feature '{feature}' is also {taken[feature]}"
        return None

    def attribute_column(self, family: str, value: str) -> int:
        """The column of `x` holding `family=value`."""
        column = len(self.palette)
        for declared in self.families:
            if declared.name == family:
                return column + declared.values.index(value)
            column += len(declared.values)
        raise KeyError(family)


    def feature_column(self, feature: str) -> int:
        """The column of `x` holding the numeric feature `feature`."""
        return self.num_features - len(self.features) + self.features.index(feature)
