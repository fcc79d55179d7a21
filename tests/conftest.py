import os
import sys
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))

# Every property draws the same examples on every run unless a test says otherwise: a
# fresh random draw once grew a pure-Python diagram past 23 GB and the CI run was killed,
# and a test run must pass or fail for what the code does, not for a draw.
# `HYPOTHESIS_PROFILE=explore` draws afresh (for hunting; the fuzzer explores too).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def _import_every_gracr_module() -> None:
    """Import all of gracr before any test draws.

    Hypothesis mixes into its draws constants it finds in the local modules imported so
    far, so a property's examples depended on which tests had run before it (imports
    inside functions) and on how pytest-xdist shared the tests out: a share-of-draws
    check passed alone and failed after other files. With every module imported first,
    a repeatable draw is the same in any order, in any subset and on any worker."""
    import importlib
    import pkgutil

    import gracr

    for module in pkgutil.walk_packages(gracr.__path__, "gracr."):
        importlib.import_module(module.name)


_import_every_gracr_module()


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Run a test with one torch thread, restoring the setting afterwards."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True, scope="session")
def private_places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep the tests' datasets and tuned settings out of the user's cache and config
    folders: one private cache for the session (datasets are shared between tests) and an
    empty config folder."""
    from gracr.places import CACHE_VARIABLE, CONFIG_VARIABLE

    saved = {name: os.environ.get(name) for name in (CACHE_VARIABLE, CONFIG_VARIABLE)}
    os.environ[CACHE_VARIABLE] = str(tmp_path_factory.mktemp("cache"))
    os.environ[CONFIG_VARIABLE] = str(tmp_path_factory.mktemp("config"))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty dataset store for one test module, whose tests share what it builds."""
    return tmp_path_factory.mktemp("datasets")
