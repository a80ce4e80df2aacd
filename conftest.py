"""Run the slowest test files first, so that the two pytest-xdist workers finish at about the same time.

Each notebook starts its own kernel (importing torch: 2-3 s) and the lesson notebooks are the longest, so they go
first, then the solutions notebook, then the largest unit-test module and the other unit tests, which fill the
gaps at the end. Needs `--dist loadscope --no-loadscope-reorder` (set in pyproject.toml).
"""

from __future__ import annotations

import os
import sys

import pytest

from attention_helpers.tools.refresh import pin_numerics

pin_numerics()  # before any kernel starts: committed outputs were made with the same numerics (see refresh.py)
# One thread per kernel and per worker: the two pytest-xdist workers already keep both cores busy, and a second
# thread each would only wait for a core. (Outputs do not depend on it: `python -m attention_helpers.tools.fragility`.)
os.environ.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
# Cache compiled bytecode (__pycache__/, git-ignored) even where the environment sets PYTHONDONTWRITEBYTECODE: else each
# notebook kernel and worker compiles the package and the tests from source again, about 0.5 s a process.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


def _rank(item: pytest.Item) -> tuple[int, str]:
    path = item.path.as_posix()
    if "/notebooks/solutions/" in path:
        return 1, item.path.name
    if "/notebooks/" in path:
        # 07, 06, ... 01: the later notebooks compute more
        return 0, "".join(chr(255 - ord(c)) for c in item.path.name)
    if item.path.name == "test_masking.py":
        return 2, ""
    return 3, item.path.name


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: the order inside a file is kept
