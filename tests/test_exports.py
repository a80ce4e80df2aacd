"""Every module's `__all__` says exactly what it offers, and `from attention_helpers.checks import *` gets every check.

A module's public names are those its own top-level code defines (def, class, assignment), not starting with "_";
names it imports are not its own. A defining module's `__all__` is exactly its public names. A gathering module (one
that defines nothing public itself, such as the package's `__init__` or `widgets`) may also list names it imports
from the package, each one a name another module defines and exports.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import re
from types import ModuleType

import pytest

import attention_helpers


def all_modules() -> list[ModuleType]:
    """The package and every module under it, found by walking it (a new module is checked without a test change)."""
    names = [
        info.name
        for info in pkgutil.walk_packages(attention_helpers.__path__, "attention_helpers.")
        if not info.name.endswith(".__main__")  # `python -m ...` entry points run when imported
    ]
    return [attention_helpers] + [importlib.import_module(name) for name in names]


MODULES = all_modules()


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The module's top-level statements, with those inside top-level if/try/with/for blocks (not inside functions)."""
    found, pending = [], list(tree.body)
    while pending:
        node = pending.pop(0)
        found.append(node)
        if isinstance(node, (ast.If, ast.Try, ast.With, ast.For)):
            pending.extend(node.body + node.orelse + getattr(node, "finalbody", []))
            pending.extend(stmt for handler in getattr(node, "handlers", []) for stmt in handler.body)
    return found


@functools.cache
def bindings(module: ModuleType) -> tuple[set[str], set[str]]:
    """(public names the module's own code defines, public names it imports from inside the package)."""
    defined, imported = set(), set()
    for node in _top_level(ast.parse(inspect.getsource(module))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.ImportFrom) and node.level > 0:  # from .x import name: the package's own
            imported |= {alias.asname or alias.name for alias in node.names}
    public = lambda names: {n for n in names if not n.startswith("_")}
    return public(defined - {"__all__"}), public(imported)


def owner(name: str, value: object) -> ModuleType | None:
    """The module of the package that defines `name` as this very object and lists it in its `__all__`."""
    for module in MODULES:
        if name in bindings(module)[0] and name in getattr(module, "__all__", ()):
            if getattr(module, name) is value:
                return module
    return None


# Modules that define names and also re-export others on purpose, with the outside names they may re-export: the d2l
# porting aid offers d2l's names wherever they live (the package's layers, matplotlib's pyplot as `plt`).
MIXED = {"attention_helpers.d2l": {"plt"}}


def gathers(module: ModuleType) -> bool:
    """A module (or a package's __init__) that defines nothing public itself: it gathers names from elsewhere."""
    return not bindings(module)[0]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_all_is_a_list_of_names_that_exist(module):
    assert isinstance(getattr(module, "__all__", None), list), f"{module.__name__} has no __all__ list"
    exported = module.__all__
    assert all(isinstance(name, str) for name in exported)
    assert len(exported) == len(set(exported)), f"{module.__name__}.__all__ lists a name twice"
    missing = [name for name in exported if not hasattr(module, name)]
    assert not missing, f"{module.__name__}.__all__ names what it does not have: {missing}"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_all_lists_every_public_name_and_nothing_else(module):
    defined, imported = bindings(module)
    exported = set(module.__all__)
    assert not defined - exported, f"{module.__name__} defines {sorted(defined - exported)} but leaves them out"
    extra = exported - defined
    if module.__name__ in MIXED:
        strays = sorted(n for n in extra - MIXED[module.__name__] if owner(n, getattr(module, n)) is None)
        assert not strays, (
            f"{module.__name__}.__all__ lists names no module of the package defines and exports: {strays}"
        )
        return
    if not gathers(module):
        assert not extra, f"{module.__name__}.__all__ lists names it does not define: {sorted(extra)}"
        return
    # a gathering module lists what it imports from the package, and only names another module defines and exports
    assert not imported - exported, f"{module.__name__} imports {sorted(imported - exported)} but does not list them"
    strays = sorted(name for name in extra if owner(name, getattr(module, name)) is None)
    assert not strays, f"{module.__name__}.__all__ lists names no module of the package defines and exports: {strays}"


def check_functions() -> dict[str, object]:
    """Every check_N_M function defined in the checks modules, by name."""
    import attention_helpers.checks as checks

    found = {}
    for info in pkgutil.iter_modules(checks.__path__):
        module = importlib.import_module(f"{checks.__name__}.{info.name}")
        for name, value in vars(module).items():
            if re.fullmatch(r"check_\d+_\d+", name) and getattr(value, "__module__", None) == module.__name__:
                found[name] = value
    return found


def test_checks_exports_every_check_and_what_each_module_exports():
    import attention_helpers.checks as checks

    found = check_functions()
    assert len(found) >= 20  # notebooks 0 to 10 have 2 to 5 exercises each
    assert sorted(set(found) - set(checks.__all__)) == []
    for info in pkgutil.iter_modules(checks.__path__):
        module = importlib.import_module(f"{checks.__name__}.{info.name}")
        assert set(module.__all__) <= set(checks.__all__), info.name


def test_star_import_of_checks_gets_every_check():
    namespace: dict[str, object] = {}
    exec("from attention_helpers.checks import *", namespace)
    found = check_functions()
    assert {name: namespace.get(name) for name in found} == found  # the same functions, none missing
    assert "CheckResult" in namespace and not any(name.startswith("_") for name in namespace if name != "__builtins__")
