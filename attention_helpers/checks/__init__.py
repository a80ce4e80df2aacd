"""Instant self-checks for the notebooks' exercises: `check_1_1(your_function)` says what is wrong or that it is right.

Each check runs the learner's function on hand-picked edge cases and random ones, compares with a reference
built from `attention_helpers` or PyTorch, and returns a `CheckResult`: true only when every case passes, shown
in a notebook as one line (✅ right, ❌ what is wrong and on which case, ⏳ not attempted yet).

One module per notebook (`nb01`, `nb02`, ...) sharing the runner in `_runner`; import every check from here.
"""

from . import nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb10
from ._runner import Case, CheckResult, run_check
from .nb01 import *  # noqa: F403
from .nb02 import *  # noqa: F403
from .nb03 import *  # noqa: F403
from .nb04 import *  # noqa: F403
from .nb05 import *  # noqa: F403
from .nb06 import *  # noqa: F403
from .nb07 import *  # noqa: F403
from .nb10 import *  # noqa: F403

__all__ = ["Case", "CheckResult", "run_check"] + [
    name for module in (nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb10) for name in module.__all__
]
