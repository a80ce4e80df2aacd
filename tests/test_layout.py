"""The package's folders show its architecture, and imports run one way (CONTRIBUTING, "Architecture").

- the core (the modules at the top of `attention_helpers/`) imports nothing from the other folders;
- `explore/` uses the core; `lessons/` uses the core and `explore/`; `checks/` uses the core and `lessons/`;
- `tools/` may use everything, and nothing but `tools/` imports it.
The package's `__init__.py` is the front door: besides the core's names it re-exports the explorers' (loaded on first
use), so it alone of the top folder may name `explore`.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "attention_helpers"

# kind -> the kinds it may import (its own included)
ALLOWED = {
    "core": {"core"},
    "explore": {"core", "explore"},
    "lessons": {"core", "explore", "lessons"},
    "checks": {"core", "lessons", "checks"},
    "tools": {"core", "explore", "lessons", "checks", "tools"},
    "front door": {"core", "explore"},
}
FOLDERS = {"explore", "lessons", "checks", "tools"}


def kind_of(module: str) -> str:
    """'attention_helpers.lessons.dates' -> 'lessons'; a top-level module -> 'core'; the package itself -> 'front door'."""
    parts = module.split(".")
    if parts == ["attention_helpers"]:
        return "front door"
    return parts[1] if parts[1] in FOLDERS else "core"


def module_name(path: Path, package: Path) -> tuple[str, bool]:
    """A file's dotted name under `package`, and whether it is a package's `__init__.py`."""
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def imported_modules(path: Path, package: Path) -> list[tuple[int, str]]:
    """Every `attention_helpers` module a file imports, at any depth of the file (functions and `TYPE_CHECKING`
    blocks included), as (line, absolute dotted name)."""
    name, is_package = module_name(path, package)
    here = name.split(".") if is_package else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from . import _validate`: a name may be a module (`real_module` keeps the longest prefix that is one)
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return [(line, dotted) for line, dotted in found if dotted.split(".")[0] == "attention_helpers"]


def real_module(dotted: str, package: Path) -> str | None:
    """The longest prefix of `dotted` that is a module or package under `package` (None: the package itself)."""
    parts = dotted.split(".")
    for end in range(len(parts), 1, -1):
        path = package.joinpath(*parts[1:end])
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return ".".join(parts[:end])
    return None


def violations(package: Path) -> list[str]:
    """Each import that runs against `ALLOWED`, as 'file:line: kind imports kind (module)'."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if "sphinx" in path.parts:  # the book's Sphinx configuration: read by Sphinx, not imported
            continue
        name, _ = module_name(path, package)
        importer = kind_of(name)
        for line, dotted in imported_modules(path, package):
            target = real_module(dotted, package)
            if target is None:
                continue
            if kind_of(target) not in ALLOWED[importer]:
                found.append(
                    f"{path.relative_to(package.parent)}:{line}: {importer} imports {kind_of(target)} ({target})"
                )
    return sorted(set(found))


def test_imports_run_one_way():
    assert violations(PACKAGE) == []


def test_the_check_fails_when_the_core_imports_a_lesson(tmp_path):
    package = tmp_path / "attention_helpers"
    for folder in ("", "lessons", "explore", "tools"):
        (package / folder).mkdir(parents=True, exist_ok=True)
        (package / folder / "__init__.py").write_text("")
    (package / "lessons" / "dates.py").write_text("from .. import masking\n")  # allowed: a lesson uses the core
    (package / "tools" / "refresh.py").write_text("from ..lessons import dates\n")  # allowed: tools use everything
    (package / "masking.py").write_text("def f():\n    from .lessons.dates import x\n")  # core -> lesson
    (package / "layers.py").write_text("import attention_helpers.tools.refresh\n")  # core -> tools
    (package / "explore" / "svg.py").write_text("from ..lessons import dates\n")  # explore -> lesson
    assert violations(package) == [
        "attention_helpers/explore/svg.py:1: explore imports lessons (attention_helpers.lessons.dates)",
        "attention_helpers/layers.py:1: core imports tools (attention_helpers.tools.refresh)",
        "attention_helpers/masking.py:2: core imports lessons (attention_helpers.lessons.dates)",
    ]


def test_a_newcomer_finds_the_core_among_few_modules_at_the_top():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= 8, top
    assert {"masking.py", "layers.py", "plotting.py"} <= set(top)
    folders = sorted(path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file())
    assert folders == ["checks", "explore", "lessons", "tools"]


def test_tests_mirror_the_package():
    tests = Path(__file__).resolve().parent
    for folder in ("core", "lessons", "explore", "checks", "tools"):
        assert any((tests / folder).glob("test_*.py")), f"tests/{folder}/ holds no tests"
    for path in (PACKAGE / "lessons").glob("[!_]*.py"):
        stem = path.stem.removesuffix("_train")
        assert (tests / "lessons" / f"test_{stem}.py").is_file(), f"no tests/lessons/test_{stem}.py for {path.name}"
