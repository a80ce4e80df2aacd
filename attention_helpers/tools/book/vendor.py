"""The scripts the book and the decks load, vendored and pinned: `python -m attention_helpers.tools.book.vendor [--only NAME]`.

- @jupyter-widgets/html-manager's `dist/embed.js` renders the widget state a page embeds, with no kernel, no
  require.js and no CDN (it is standalone; 1.0.x renders the models of ipywidgets 8.1: controls and base 2.0.0).
  Its Font Awesome fonts come in woff2 only (every browser that runs embed.js reads woff2); the `.map`, and the
  fonts' eot, ttf, svg and woff copies, are left out.
- MathJax 3's `es5/tex-chtml.js` (TeX in, HTML out, with its assistive MathML for screen readers) and the woff-v2
  fonts it loads from beside itself; Sphinx's `mathjax_path` points at it.
- reveal.js's `dist/reveal.js` (its UMD build, which sets `window.Reveal`), `dist/reveal.css`, the speaker-notes
  plugin `dist/plugin/notes.js` and its MIT licence, in `static/reveal.js/`: the lecture decks only
  (`python -m attention_helpers.tools.slides`); the book leaves that folder out (`exclude_patterns` in its conf.py).
  The decks bring their own theme (`tools/slides/deck.css`), so none of reveal.js's themes and fonts is vendored.

This command fetches each package with `npm pack` (npm's registry), copies those files into `static/` and
records package, version, licence and each file's size and sha256 in `static/vendored.json`; the book's build
refuses files that do not match that record.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

__all__ = ["BOOK_PACKAGES", "PACKAGES", "RECORD", "STATIC", "fetch", "main", "record", "sha256", "verify"]

STATIC = Path(__file__).resolve().parent / "static"
RECORD = STATIC / "vendored.json"
# npm package -> (version, {file in the package (a glob): where it goes under static/})
PACKAGES: dict[str, tuple[str, dict[str, str]]] = {
    "@jupyter-widgets/html-manager": (
        "1.0.15",
        {"dist/embed.js": "embed.js", "dist/embed.js.LICENSE.txt": "embed.js.LICENSE.txt", "dist/*.woff2": ""},
    ),
    "mathjax": (
        "3.2.2",
        {
            "es5/tex-chtml.js": "mathjax/tex-chtml.js",
            "LICENSE": "mathjax/LICENSE",
            "es5/output/chtml/fonts/woff-v2/*.woff": "mathjax/output/chtml/fonts/woff-v2/",
        },
    ),
    "reveal.js": (
        "6.0.2",
        {
            "dist/reveal.js": "reveal.js/reveal.js",
            "dist/reveal.css": "reveal.js/reveal.css",
            "dist/plugin/notes.js": "reveal.js/plugin/notes.js",
            "LICENSE": "reveal.js/LICENSE",
        },
    ),
}
BOOK_PACKAGES = ("@jupyter-widgets/html-manager", "mathjax")  # what the book ships; reveal.js is for the decks


def sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record() -> dict:
    """What static/vendored.json says the vendored files are: package -> {version, license, files: {path: ...}}."""
    return json.loads(RECORD.read_text(encoding="utf-8"))


def verify(packages: tuple[str, ...] | list[str] | None = None) -> int:
    """Raise if a vendored file (of `packages`, default all) is missing or is not the file its record names;
    returns their total size in bytes."""
    total = 0
    for package, entry in record().items():
        if packages is not None and package not in packages:
            continue
        for rel, expected in entry["files"].items():
            path = STATIC / rel
            actual = sha256(path) if path.exists() else "missing"
            if actual != expected["sha256"]:
                raise RuntimeError(
                    f"{path} has sha256 {actual}, but {RECORD.name} records {expected['sha256']} for "
                    f"{package}@{entry['version']}; run `python -m attention_helpers.tools.book.vendor`"
                )
            total += path.stat().st_size
    return total


def _copy(package_dir: Path, pattern: str, target: str) -> list[str]:
    """Copy the package's files matching pattern to static/target; returns their paths under static/."""
    sources = sorted(package_dir.glob(pattern))
    if not sources:
        raise RuntimeError(f"{pattern} is not in the package")
    copied = []
    for source in sources:
        rel = target + source.name if target.endswith("/") or not target else target
        (STATIC / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, STATIC / rel)
        copied.append(rel)
    return copied


def fetch(package: str) -> dict:
    """Download one package with `npm pack`, vendor its files, update and return its entry in the record."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed to fetch the vendored scripts (apt-get install npm)")
    version, files = PACKAGES[package]
    with tempfile.TemporaryDirectory(prefix="ah-npm-") as tmp:
        subprocess.run([npm, "pack", f"{package}@{version}"], cwd=tmp, check=True, capture_output=True)
        (tarball,) = Path(tmp).glob("*.tgz")
        with tarfile.open(tarball) as archive:
            archive.extractall(tmp, filter="data")
        root = Path(tmp) / "package"
        meta = json.loads((root / "package.json").read_text(encoding="utf-8"))
        copied = [rel for pattern, target in files.items() for rel in _copy(root, pattern, target)]
    entry = {
        "version": meta["version"],
        "license": meta.get("license", ""),
        "files": {rel: {"bytes": (STATIC / rel).stat().st_size, "sha256": sha256(STATIC / rel)} for rel in copied},
    }
    everything = record() if RECORD.exists() else {}
    everything[package] = entry
    RECORD.write_text(json.dumps(everything, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(PACKAGES), help="refresh one package (default: all)")
    args = parser.parse_args(argv)
    for package in [args.only] if args.only else PACKAGES:
        entry = fetch(package)
        size = sum(f["bytes"] for f in entry["files"].values())
        print(f"{package}@{entry['version']}: {len(entry['files'])} files, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
