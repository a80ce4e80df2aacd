"""The one script the site loads, vendored and pinned: `python -m attention_helpers.site.vendor [--version V]`.

@jupyter-widgets/html-manager's `dist/embed.js` renders the widget state a page embeds, with no kernel, no
require.js and no CDN (it is standalone; 1.0.x renders the models of ipywidgets 8.1: controls and base 2.0.0).
This command fetches the package with `npm pack` (npm's registry), copies `dist/embed.js` and its licence notes
into `static/`, and records package, version, size and sha256 in `static/embed.js.json`; the site build checks
the file against that record. The `.map` and the Font Awesome files are left out (no explorer draws an icon).
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

__all__ = ["PACKAGE", "RECORD", "SCRIPT", "STATIC", "VERSION", "fetch", "main", "record", "sha256", "verify"]

PACKAGE = "@jupyter-widgets/html-manager"
VERSION = "1.0.15"
STATIC = Path(__file__).resolve().parent / "static"
SCRIPT = STATIC / "embed.js"
RECORD = STATIC / "embed.js.json"


def sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record() -> dict:
    """What static/embed.js.json says the vendored script is."""
    return json.loads(RECORD.read_text(encoding="utf-8"))


def verify() -> None:
    """Raise if static/embed.js is not the file its record names (edited, truncated, or refreshed by hand)."""
    expected = record()
    actual = sha256(SCRIPT)
    if actual != expected["sha256"]:
        raise RuntimeError(
            f"{SCRIPT} has sha256 {actual}, but {RECORD.name} records {expected['sha256']} for "
            f"{expected['package']}@{expected['version']}; run `python -m attention_helpers.site.vendor`"
        )


def fetch(version: str = VERSION) -> dict:
    """Download the package with `npm pack`, vendor dist/embed.js and its licences, write and return the record."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed to fetch the widget manager (apt-get install npm)")
    with tempfile.TemporaryDirectory(prefix="ah-npm-") as tmp:
        subprocess.run([npm, "pack", f"{PACKAGE}@{version}"], cwd=tmp, check=True, capture_output=True)
        (tarball,) = Path(tmp).glob("*.tgz")
        with tarfile.open(tarball) as archive:
            archive.extractall(tmp, filter="data")
        dist = Path(tmp) / "package" / "dist"
        meta = json.loads((Path(tmp) / "package" / "package.json").read_text(encoding="utf-8"))
        STATIC.mkdir(exist_ok=True)
        shutil.copyfile(dist / "embed.js", SCRIPT)
        shutil.copyfile(dist / "embed.js.LICENSE.txt", STATIC / "embed.js.LICENSE.txt")
    entry = {
        "package": PACKAGE,
        "version": meta["version"],
        "file": "dist/embed.js",
        "license": meta.get("license", ""),
        "bytes": SCRIPT.stat().st_size,
        "sha256": sha256(SCRIPT),
        "command": f"python -m attention_helpers.site.vendor --version {meta['version']}",
    }
    RECORD.write_text(json.dumps(entry, indent=2) + "\n", encoding="utf-8")
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=VERSION, help=f"html-manager version (default {VERSION})")
    args = parser.parse_args(argv)
    entry = fetch(args.version)
    print(f"{entry['package']}@{entry['version']}: {entry['bytes']} bytes, sha256 {entry['sha256']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
