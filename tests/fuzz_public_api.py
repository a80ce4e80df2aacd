"""The adversarial pass of issue 17, re-runnable: every public function with bad values put in each argument.

Run from the repository root: `python tests/fuzz_public_api.py [module prefix ...]` (e.g. `toy cost`).
It starts from the example calls of tests/test_contract.py and, one argument at a time, puts in None, a string,
True, 1.5, -1, 0, NaN, inf, [], an object and, for tensors, an empty, a meta, an unsqueezed, a 0-D, a float64,
an integer and a NaN tensor. It prints what is not a TypeError/ValueError naming the argument:
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
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
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
    return values


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
