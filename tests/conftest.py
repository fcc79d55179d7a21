import os
import sys
from typing import Iterator

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Run a test with one torch thread, restoring the setting afterwards."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
