"""The runner behind the self-checks for the notebooks' exercises: `check_1_1(your_function)` says what is wrong or that it is right.

Each check runs the learner's function on hand-picked edge cases and random ones, compares with a reference
built from `attention_helpers` or PyTorch, and returns a `CheckResult`: true only when every case passes, shown
in a notebook as one line (✅ right, ❌ what is wrong and on which case, ⏳ not attempted yet).
"""

from __future__ import annotations

import dis
import math
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import CodeType
from typing import Any

import torch

__all__ = ["Case", "CheckResult", "check_answer", "combine", "run_check"]

Case = tuple[tuple[Any, ...], str]  # (arguments, description)


class CheckResult:
    """The verdict of a check: truthy when passed; its repr is the one-line message a notebook shows."""

    def __init__(self, passed: bool, message: str):
        self.passed, self.message = passed, message

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return self.message


def _fmt(value: torch.Tensor) -> str:
    item = value.item()
    return str(item) if isinstance(item, bool) else f"{item:.4g}"


_PACKAGE = str(Path(__file__).resolve().parent.parent)  # attention_helpers/: calls from the package are allowed


def _loop_in(fn: Callable[..., Any]) -> str | None:
    """'a for loop or comprehension' / 'a while loop' if fn's own code (or code nested in it) loops, else None."""
    pending = [getattr(fn, "__code__", None)]
    found = None
    while pending:
        code = pending.pop()
        if not isinstance(code, CodeType):
            continue
        for instruction in dis.get_instructions(code):
            if instruction.opname == "FOR_ITER":
                return "a for loop or comprehension"
            backward = "BACKWARD" in instruction.opname  # 3.11+: JUMP_BACKWARD, POP_JUMP_BACKWARD_IF_TRUE, ...
            if backward or (instruction.opcode in dis.hasjabs and instruction.argval <= instruction.offset):
                found = "a while loop"
        pending.extend(c for c in code.co_consts if isinstance(c, CodeType))
    return found


class _CallWatch:
    """Records which of the `forbidden` functions are called from outside attention_helpers while active."""

    def __init__(self, forbidden: Mapping[str, object]):
        self.codes: dict[CodeType, str] = {}
        self.builtins: dict[int, str] = {}
        for name, target in forbidden.items():
            function = getattr(target, "forward", target)  # a module class: its forward
            code = getattr(function, "__code__", None)
            if code is not None:
                self.codes[code] = name
            else:
                self.builtins[id(target)] = name
        self.seen: list[str] = []

    def _hook(self, frame, event, arg) -> None:
        if event == "call" and frame.f_code in self.codes:
            caller = frame.f_back
            if caller is None or not caller.f_code.co_filename.startswith(_PACKAGE):
                self.seen.append(self.codes[frame.f_code])
        elif event == "c_call" and id(arg) in self.builtins and not frame.f_code.co_filename.startswith(_PACKAGE):
            self.seen.append(self.builtins[id(arg)])

    def __enter__(self) -> _CallWatch:
        self._previous = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(self._previous)


def run_check(
    label: str,
    fn: Callable[..., Any],
    cases: Iterable[Case],
    reference: Callable[..., Any],
    *,
    exact: bool = False,
    dtype: torch.dtype | None = None,
    forbid: Mapping[str, object] | None = None,
    no_loops: bool = False,
    atol: float = 1e-5,
    rtol: float = 1e-4,
) -> CheckResult:
    """Call fn and reference on each case; the result names the first difference, or says all passed.

    `forbid`: functions (or module classes) the exercise says not to use, by the name to show; calling one from
    the learner's code fails the check. `no_loops`: a Python loop in fn's own code fails it. `atol`, `rtol`: how close
    floating-point values must be (loosen them for float16 and bfloat16 cases)."""
    if not callable(fn):
        return CheckResult(
            False, f"❌ {label}: pass your function itself (without calling it), got {type(fn).__name__}"
        )
    if no_loops and (loop := _loop_in(fn)):
        return CheckResult(
            False, f"❌ {label}: your function uses {loop}; the exercise asks for broadcasting, no Python loops"
        )
    for name, target in (forbid or {}).items():
        if fn is target:
            return CheckResult(
                False, f"❌ {label}: you passed {name} itself, which the exercise asks you to do without"
            )
    count = 0
    for args, description in cases:
        count += 1
        snapshot = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        try:
            with _CallWatch(forbid or {}) as watch:
                got = fn(*args)
        except NotImplementedError:
            return CheckResult(
                False,
                f"⏳ {label}: not attempted yet; replace `raise NotImplementedError` with your code and run again.",
            )
        except Exception as error:  # the learner's bug, reported in one line
            return CheckResult(False, f"❌ {label}: raised {type(error).__name__}: {error}  (case: {description})")
        if watch.seen:
            return CheckResult(
                False, f"❌ {label}: your function calls {watch.seen[0]}, which the exercise asks you to do without"
            )
        for before, after in zip(snapshot, args, strict=True):
            if isinstance(before, torch.Tensor) and not torch.equal(before, after):
                return CheckResult(
                    False, f"❌ {label}: your function modified its input (case: {description}); return a new tensor"
                )
        expected = reference(*args)  # on the inputs as given (a modified one could make the reference raise)
        if not isinstance(got, torch.Tensor):
            return CheckResult(
                False, f"❌ {label}: expected a torch.Tensor, got {type(got).__name__} (case: {description})"
            )
        if got.shape != expected.shape:
            return CheckResult(
                False,
                f"❌ {label}: expected shape {tuple(expected.shape)}, got {tuple(got.shape)} (case: {description})",
            )
        wanted = dtype or expected.dtype
        if got.dtype != wanted:
            return CheckResult(False, f"❌ {label}: expected dtype {wanted}, got {got.dtype} (case: {description})")
        same = (
            torch.equal(got, expected)
            if exact or not got.is_floating_point()
            else torch.allclose(got, expected, atol=atol, rtol=rtol, equal_nan=False)
        )
        if not same:
            close = torch.isclose(got, expected, rtol=rtol, atol=atol) if got.is_floating_point() else got == expected
            index = tuple(int(i) for i in (~close).nonzero()[0])
            return CheckResult(
                False,
                f"❌ {label}: wrong value at index {index}: expected {_fmt(expected[index])}, "
                f"got {_fmt(got[index])} (case: {description})",
            )
    return CheckResult(True, f"✅ {label}: correct on all {count} cases.")


def _shown(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return repr(value)


def check_answer(
    label: str, got: object, expected: object, why: str, *, rel_tol: float = 0.0, abs_tol: float = 0.0
) -> CheckResult:
    """A predict-then-check answer: a number (within rel_tol/abs_tol), a shape (tuple) or a choice (str); says right
    or wrong, and why. `...` (Ellipsis) means not attempted yet."""
    if got is ...:
        return CheckResult(False, f"⏳ {label}: not attempted yet; replace `...` with your prediction and run again.")
    if isinstance(expected, str):
        right = isinstance(got, str) and got.strip().lower() == expected.lower()
        if not isinstance(got, str):
            return CheckResult(False, f"❌ {label}: expected one of the choices as a string, got {_shown(got)}")
    elif isinstance(expected, tuple):
        if isinstance(got, torch.Size) or (isinstance(got, (tuple, list)) and all(isinstance(n, int) for n in got)):
            right = tuple(got) == expected
        else:
            return CheckResult(False, f"❌ {label}: expected a shape such as (2, 3), got {_shown(got)}")
    else:
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return CheckResult(False, f"❌ {label}: expected a number, got {_shown(got)}")
        right = math.isclose(float(got), float(expected), rel_tol=rel_tol, abs_tol=abs_tol)
    if right:
        return CheckResult(True, f"✅ {label}: right, {_shown(expected)}. {why}")
    return CheckResult(False, f"❌ {label}: you said {_shown(got)}, but it is {_shown(expected)}. {why}")


def combine(results: Iterable[CheckResult]) -> CheckResult:
    """Several answers as one verdict: passed when every one passed; one line per answer."""
    results = list(results)
    return CheckResult(all(results), "\n".join(r.message for r in results))
