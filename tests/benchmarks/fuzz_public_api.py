"""The adversarial pass of issue 17, re-runnable: every public function with bad values put in each argument.

Run from the repository root: `python tests/benchmarks/fuzz_public_api.py [module prefix ...]` (e.g. `toy cost`).
It starts from the example calls of tests/test_contract.py and, one argument at a time, puts in None, a string,
True, 1.5, -1, 0, NaN, inf, [], an object and, for tensors, an empty, a meta, an unsqueezed, a 0-D, a float64,
an integer and a NaN tensor, the same tensor in every dtype PyTorch stores but does not compute with (float8,
uint16 ...) and in complex64, and for integer tensors (lengths) whole floats too large for int64 (1e30, -1e30).
It prints what is not a TypeError/ValueError naming the argument:
- RAW: another exception (a raw error from inside torch, numpy or ipywidgets): a bug;
- UNNAMED: a TypeError/ValueError whose message does not name the argument (often fine: it names the other side
  of a mismatch);
- ACCEPTED: no error (often fine: the bad value was legitimate); read these for silent wrong answers.
Not a test: it takes a minute or two and its verdicts need reading.
"""

from __future__ import annotations

import collections
import inspect
import math
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: test_contract
import test_contract  # noqa: E402  (the example calls)


def bad_values(original: object) -> list[tuple[str, object]]:
    values = [("None", None), ("str", "x"), ("True", True), ("1.5", 1.5), ("-1", -1), ("0", 0)]
    values += [("nan", math.nan), ("inf", math.inf), ("[]", []), ("object", object())]
    if isinstance(original, torch.Tensor):
        values += [
            ("empty", torch.empty(0)),
            ("meta", torch.empty(original.shape, dtype=original.dtype, device="meta")),
            ("unsqueezed", original.unsqueeze(0)),
            ("0-D", torch.tensor(1.0) if original.is_floating_point() else torch.tensor(1)),
        ]
        if original.is_floating_point():
            nan = original.clone().fill_(math.nan) if original.numel() else original
            values += [("float64", original.double()), ("long", original.long()), ("NaN", nan)]
        elif original.dtype != torch.bool:
            values += [("float", original.float()), ("bool", original > 0), ("-100", original - 100)]
            values += [("1e30", original.double() + 1e30), ("-1e30", original.double() - 1e30)]
        values += [(str(dtype)[6:], original.to(dtype)) for dtype in STORED_ONLY]
        values += [("complex64", original.to(torch.complex64))]
    elif isinstance(original, np.ndarray) and np.issubdtype(original.dtype, np.number):
        values += [("complex", original.astype(np.complex128))]
    elif isinstance(original, (list, tuple)) and original and all(is_number(v) for v in original):
        values += [("complex", [complex(v) for v in original]), ("1e30", [1e30 for _ in original])]
    elif has_tensor(original):  # tensors inside a list, a tuple (a Partial ...) or a dict: each converted
        values += [(f"in {str(dtype)[6:]}", nested(original, lambda t, d=dtype: t.to(d))) for dtype in STORED_ONLY]
        values += [("in complex64", nested(original, lambda t: t.to(torch.complex64)))]
    return values


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def has_tensor(value: object) -> bool:
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, (list, tuple)) and any(has_tensor(v) for v in value)


def nested(value: object, convert: Callable[[torch.Tensor], torch.Tensor]) -> object:
    """value with every tensor in it, at any depth of lists, tuples (named ones too) and dicts, converted."""
    if isinstance(value, torch.Tensor):
        return convert(value)
    if isinstance(value, dict):
        return {k: nested(v, convert) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple such as efficient.Partial
        return type(value)(*(nested(v, convert) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(nested(v, convert) for v in value)
    return value


# Every dtype PyTorch stores but does not compute with (float8, uint16 ...): the contract test's list.
from test_contract import STORED_ONLY  # noqa: E402  (tests/ is first on sys.path)


def main(prefixes: list[str]) -> None:
    warnings.filterwarnings("ignore")
    verdicts = collections.Counter()
    for name, make in sorted(test_contract.EXAMPLES.items()):
        if prefixes and not any(name.startswith(p) for p in prefixes):
            continue
        for index, (fn, args, kwargs) in enumerate(make(torch.float32)):
            target = fn.forward if isinstance(fn, torch.nn.Module) else fn
            try:
                signature = inspect.signature(target)
            except (TypeError, ValueError):
                continue
            bound = signature.bind(*args, **kwargs)
            for parameter in signature.parameters.values():
                if parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
                    continue
                for label, value in bad_values(bound.arguments.get(parameter.name, parameter.default)):
                    fresh, fresh_args, fresh_kwargs = make(torch.float32)[index]  # stateful objects start afresh
                    call = signature.bind(*fresh_args, **fresh_kwargs)
                    call.arguments[parameter.name] = value
                    try:
                        fresh(*call.args, **call.kwargs)
                        verdict, message = "ACCEPTED", ""
                    except (TypeError, ValueError) as error:
                        message = str(error).splitlines()[0][:140]
                        verdict = "ok" if parameter.name in str(error) else "UNNAMED"
                    except Exception as error:  # noqa: BLE001  (the point: any other exception is a finding)
                        verdict, message = f"RAW {type(error).__name__}", str(error).splitlines()[0][:140]
                    verdicts[verdict.split()[0]] += 1
                    if verdict != "ok":
                        print(f"{verdict:24} {name:44} {parameter.name:16} {label:11} {message}")
    print(dict(verdicts))


if __name__ == "__main__":
    main(sys.argv[1:])
