"""The runner behind the self-checks for the notebooks' exercises: `check_1_1(your_function)` says what is wrong or that it is right.

Each check runs the learner's function on hand-picked edge cases and random ones, compares with a reference
built from `attention_helpers` or PyTorch, and returns a `CheckResult`: true only when every case passes, shown
in a notebook as one line (✅ right, ❌ what is wrong and on which case, ⏳ not attempted yet).
"""

from __future__ import annotations

import dis
import functools
import math
import numbers
import sys
import sysconfig
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import CodeType
from typing import Any

import torch

from .._validate import describe

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


def _shown(value: object) -> str:
    """A learner's answer as a message shows it: short, and never an error (tensors by dtype and shape)."""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, torch.Tensor):
        return describe(value)
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001  (an object whose repr fails is still an answer to refuse)
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _as_number(value: object) -> float | None:
    """A predicted number as a float (an int, a float, a numpy number or a 0-d real tensor; an int too large for a
    float is +-inf), or None for anything else (a bool, a string, a complex number, a list ...)."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 0 or value.is_meta or value.is_complex() or value.dtype == torch.bool:
            return None
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _raised(label: str, error: Exception, where: str) -> CheckResult:
    """The verdict when the learner's function raised: not attempted yet for the exercise's own bare
    `raise NotImplementedError` (PyTorch's NotImplementedErrors say what is missing), else what it raised and where."""
    if isinstance(error, NotImplementedError) and not str(error):
        return CheckResult(
            False, f"⏳ {label}: not attempted yet; replace `raise NotImplementedError` with your code and run again."
        )
    return CheckResult(False, f"❌ {label}: raised {type(error).__name__}: {error}  ({where})")


def _call_again(fn: Callable[..., Any], args: Iterable[Any], like: torch.Tensor) -> torch.Tensor | None:
    """fn on fresh copies of args, without autograd, for a check's second look at a wrong answer (to name the bug):
    the result if it is a tensor of like's shape, dtype and device, else None; it never raises."""
    copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    try:
        with torch.no_grad():
            got = fn(*copies)
    except Exception:  # noqa: BLE001  (the learner's error was reported already; the second look just stops)
        return None
    if not isinstance(got, torch.Tensor) or got.layout != torch.strided:
        return None
    if got.shape != like.shape or got.dtype != like.dtype or got.device != like.device:
        return None
    return got


def _never_raises(check: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
    """A check that answers every answer with a verdict: should an answer get past what the check reads, its error
    becomes a ❌ that says so, never a traceback (the checks' tests hold that this never happens)."""
    label = "Exercise " + check.__name__.removeprefix("check_").replace("_", ".")

    @functools.wraps(check)
    def guarded(*args: Any, **kwargs: Any) -> CheckResult:
        try:
            return check(*args, **kwargs)
        except Exception as error:  # noqa: BLE001  (the point: a learner never sees the check's own traceback)
            return CheckResult(
                False,
                f"❌ {label}: the check could not read your answer ({type(error).__name__}: {error}); make sure it "
                f"returns what the exercise asks for",
            )

    return guarded


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


class _TorchCalls(torch.overrides.TorchFunctionMode):
    """Counts the torch functions and tensor methods called (from anywhere) while the mode is active."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


# Code that is not the learner's: torch, this package, Python's standard library and the installed packages (whose
# first calls may run imports and fill caches), and Python's frozen modules
_LIBRARIES = tuple(
    {_PACKAGE, "<frozen "}
    | {
        form
        for path in (
            Path(torch.__file__).parent,
            *(Path(p) for key, p in sysconfig.get_paths().items() if key in ("stdlib", "purelib", "platlib")),
        )
        for form in (str(path), str(path.resolve()))  # as code objects name their files, and without symlinks
    }
)


def _work(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[int, int] | None:
    """What fn does on fresh copies of args: (torch calls, lines run in the learner's own code, outside the libraries),
    or None if it raises (the run itself reports that, with its case)."""
    copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    lines = 0

    def line(frame, event, arg):
        nonlocal lines
        lines += event == "line"
        return line

    def call(frame, event, arg):
        return None if frame.f_code.co_filename.startswith(_LIBRARIES) else line

    previous = sys.gettrace()
    try:
        with torch.no_grad(), _TorchCalls() as calls:
            sys.settrace(call)
            try:
                fn(*copies)
            finally:
                sys.settrace(previous)
    except Exception:  # noqa: BLE001  (the learner's error is reported, with its case, by the run itself)
        return None
    return calls.count, lines


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
    no_loops: tuple[tuple[Any, ...], tuple[Any, ...]] | None = None,
    also_dtypes: Iterable[torch.dtype] = (),
    atol: float = 1e-5,
    rtol: float = 1e-4,
) -> CheckResult:
    """Call fn and reference on each case; the result names the first difference, or says all passed.

    `forbid`: functions (or module classes) the exercise says not to use, by the name to show; calling one from
    the learner's code fails the check. `no_loops`: two inputs alike but for their sizes, the second larger in
    every one: fn fails if it does more on the larger (more torch calls, or more lines of its own code run), the mark of
    a Python loop over the data, however written (a loop over a fixed few things, or a generator in a shape assert,
    does the same on both). `also_dtypes`: other output dtypes that are right too, compared with the reference's values
    cast to them. `atol`, `rtol`: how close floating-point values must be (loosen them for float16 and bfloat16 cases)."""
    if not callable(fn):
        return CheckResult(
            False, f"❌ {label}: pass your function itself (without calling it), got {type(fn).__name__}"
        )
    # the first input twice: a first call may do more than later ones (imports, caches filled), loop or not
    if (
        no_loops
        and None not in (work := [_work(fn, args) for args in no_loops[:1] + no_loops][1:])
        and work[0] != work[1]
    ):
        loop = _loop_in(fn) or "a Python loop over the data (map, recursion, or a loop in a function it calls)"
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
        except Exception as error:  # the learner's bug, reported in one line
            return _raised(label, error, f"case: {description}")
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
        accepted = (dtype or expected.dtype, *also_dtypes)
        if wrong := _wrong_output(got, expected, accepted, exact=exact, atol=atol, rtol=rtol):
            return CheckResult(False, f"❌ {label}: {wrong} (case: {description})")
    return CheckResult(True, f"✅ {label}: correct on all {count} cases.")


def _wrong_output(
    got: object,
    expected: torch.Tensor,
    dtype: torch.dtype | tuple[torch.dtype, ...],
    *,
    exact: bool = False,
    atol: float = 1e-5,
    rtol: float = 1e-4,
) -> str | None:
    """What is wrong with the learner's output, in a few words, or None when it matches the expected one.

    `dtype`: the dtype the output must have, or a tuple of those that are right (the first is the one to name); the
    expected values are compared in the output's dtype."""
    dtype, *others = dtype if isinstance(dtype, tuple) else (dtype,)
    if got is None:
        return "your function returned None; did it forget to `return` its result?"
    if not isinstance(got, torch.Tensor):
        kind = type(got)  # numpy.float64, not float64, which reads like the dtype that was asked for
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__.split('.')[0]}.{kind.__name__}"
        return f"expected a torch.Tensor, got {name}"
    if got.layout != torch.strided:
        return f"expected a dense torch.Tensor, got layout {got.layout}; return .to_dense()"
    if got.device != expected.device:
        return f"expected a tensor on {expected.device}, got one on {got.device}"
    if got.shape != expected.shape:
        return f"expected shape {tuple(expected.shape)}, got {tuple(got.shape)}"
    if got.dtype != dtype and got.dtype not in others:
        return f"expected dtype {dtype}, got {got.dtype}"
    expected = expected.to(got.dtype)  # no change unless another accepted dtype came back
    if exact or not got.is_floating_point():
        close = got == expected  # NaN is never equal, even to NaN
    else:
        close = torch.isclose(got, expected, rtol=rtol, atol=atol)
    if bool(close.all()):
        return None
    index = tuple(int(i) for i in (~close).nonzero()[0])
    return f"wrong value at index {index}: expected {_fmt(expected[index])}, got {_fmt(got[index])}"


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
        if (number := _as_number(got)) is None:
            return CheckResult(False, f"❌ {label}: expected a number, got {_shown(got)}")
        right = math.isclose(number, float(expected), rel_tol=rel_tol, abs_tol=abs_tol)
        got = number
    if right:
        return CheckResult(True, f"✅ {label}: right, {_shown(expected)}. {why}")
    return CheckResult(False, f"❌ {label}: you said {_shown(got)}, but it is {_shown(expected)}. {why}")


def combine(results: Iterable[CheckResult]) -> CheckResult:
    """Several answers as one verdict: passed when every one passed; one line per answer."""
    results = list(results)
    return CheckResult(all(results), "\n".join(r.message for r in results))
