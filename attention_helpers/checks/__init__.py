"""Instant self-checks for the notebooks' exercises: `check_1_1(your_function)` says what is wrong or that it is right.

Each check runs the learner's function on hand-picked edge cases and random ones, compares with a reference
built from `attention_helpers` or PyTorch, and returns a `CheckResult`: true only when every case passes, shown
in a notebook as one line (✅ right, ❌ what is wrong and on which case, ⏳ not attempted yet).

One module per notebook (`nb00`, `nb01`, ...) sharing the runner in `_runner`; every module's `__all__` (its checks,
and any class a check takes or raises) is importable from here, by name or with `import *` (a new notebook's module is
found by its name, `nbNN.py`).
"""

import importlib
import pkgutil

from ._runner import Case, CheckResult, check_answer, combine, run_check

__all__ = ["Case", "CheckResult", "check_answer", "combine", "run_check"]  # the runner, then every module's checks
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
    if _info.name.startswith("nb"):
        _module = importlib.import_module(f".{_info.name}", __name__)
        globals().update({name: getattr(_module, name) for name in _module.__all__})
        __all__ += _module.__all__
