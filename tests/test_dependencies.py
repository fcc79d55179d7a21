"""pyproject.toml keeps ranges a user's environment may take (the site's Install page), and
the chem extra keeps datamol 0.13's heavy dependencies (gcsfs, s3fs, JupyterLab) out."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def _requirements(names: list[str]) -> dict[str, Requirement]:
    return {(r := Requirement(text)).name: r for text in names}


def _pinned() -> dict[str, str]:
    """constraints.txt's exact versions, what scripts/setup.sh installs."""
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            pins[name.strip().lower()] = version.strip()
    return pins


def test_the_chem_extra_keeps_datamol_below_0_13() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    datamol = _requirements(project["optional-dependencies"]["chem"])["datamol"]
    assert not datamol.specifier.contains("0.13.0")
    assert datamol.specifier.contains("0.12.5")
    assert datamol.specifier.contains(_pinned()["datamol"])


def test_torch_is_a_range_that_admits_the_pinned_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    torch = _requirements(project["dependencies"])["torch"]
    assert all(spec.operator not in ("==", "===") for spec in torch.specifier), torch
    pinned = _pinned()["torch"]
    assert torch.specifier.contains(pinned)
    assert f'"torch=={pinned}"' in (ROOT / "scripts" / "setup.sh").read_text()


def test_the_docs_extra_is_ranges_that_admit_the_pins_and_setup_installs_it() -> None:
    # CI builds the site from nothing: scripts/setup.sh installs the extra, at the versions
    # constraints.txt pins (which the ranges must admit), and mkdocstrings' Python handler
    # with them.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    docs = _requirements(project["optional-dependencies"]["docs"])
    assert set(docs) == {"mkdocs", "mkdocs-material", "mkdocstrings"}
    assert docs["mkdocstrings"].extras == {"python"}
    pins = _pinned()
    for name, requirement in docs.items():
        assert all(spec.operator not in ("==", "===") for spec in requirement.specifier), name
        assert requirement.specifier.contains(pins[name]), (name, pins[name])
    for name in ("mkdocstrings-python", "griffelib", "pymdown-extensions", "markdown"):
        assert name in pins, name
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert '-e ".[test,ray,chem,docs]"' in setup
    assert "mkdocs build --strict" in (ROOT / ".ci" / "run").read_text()
