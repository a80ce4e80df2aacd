"""A notebook open in JupyterLab, seen through its explorers: the page API the browser test and the benchmark share.

    page = ExplorerPage(jlab.open_notebook(context, url, "02_additive_attention.ipynb"))
    page.run_all()
    for explorer in page.explorers():
        for control in explorer.controls():
            explorer.move(control, "Home" if control.kind == "slider" else 0)  # a slider's minimum, a first option
            explorer.wait_until_shows_expected(control)  # what is on screen == what the kernel draws afresh

The JavaScript run in the page lives in tests/support/js/*.js (one function per file). The kernel side is reached through
the explorers' opt-in instrumentation (`ATTENTION_HELPERS_INSTRUMENT=1` in the server's environment): explorer
number N carries the CSS class `ah-explorer-N` and is `Explorer.instances[N]` in the kernel.
"""

from __future__ import annotations

import functools
import json
import re
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import jlab

JS = Path(__file__).resolve().parent / "js"
EXPLORER_OUTPUT = re.compile(r"^\w*Explorer\(controls: ")  # an explorer's text/plain in a committed notebook


@functools.cache
def script(name: str) -> str:
    """The JavaScript function in tests/support/js/<name>.js, for `locator.evaluate` / `page.evaluate`."""
    return (JS / f"{name}.js").read_text()


class _Canonical(HTMLParser):
    """HTML as a list of start tags (attributes sorted, entities decoded) and non-blank text: the same picture
    read back from the browser's DOM and drawn by the kernel compares equal, however each serialises it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tokens: list[tuple] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tokens.append((tag, tuple(sorted((k, v or "") for k, v in attrs))))

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.tokens.append(("#text", " ".join(data.split())))


def canonical(html: str) -> tuple:
    parser = _Canonical()
    parser.feed(html)
    parser.close()
    return tuple(parser.tokens)


@dataclass(frozen=True)
class Control:
    """One control on screen: `kind` slider / toggle / dropdown, the n-th of its kind in its explorer."""

    kind: str
    nth: int
    name: str
    positions: tuple  # slider: (min, max) of its aria values; toggle / dropdown: the option labels
    position: int  # slider: its aria value; toggle / dropdown: the selected option's index
    disabled: bool

    def moves(self) -> list[int | str]:
        """Moves that each change the control, as a learner makes them: a slider one arrow key down (or up), then to
        its far end (a key name each); every other option of a toggle or drop-down, then back (option indices)."""
        if self.kind == "slider":
            return ["ArrowLeft", "End"] if self.position > self.positions[0] else ["ArrowRight", "Home"]
        return [*(i for i in range(len(self.positions)) if i != self.position), self.position]


class Explorer:
    """One explorer's output area: its controls, the picture it shows, and what its kernel says it should show."""

    def __init__(self, page: object, locator: object):
        self.page, self.locator = page, locator
        classes = locator.get_attribute("class").split()
        found = [int(c.rsplit("-", 1)[1]) for c in classes if re.fullmatch(r"ah-explorer-\d+", c)]
        self.number = found[0] if found else None  # None on a static page, or where the kernel is not instrumented

    # --- what is on screen --------------------------------------------------------------------------------------
    def controls(self) -> list[Control]:
        counts: dict[str, int] = {}
        out = []
        for c in self.locator.evaluate(script("list_controls")):
            nth = counts.get(c["kind"], 0)
            counts[c["kind"]] = nth + 1
            out.append(
                Control(c["kind"], nth, c["name"], tuple(c["positions"]), int(c["position"]), bool(c["disabled"]))
            )
        return out

    def control(self, control: Control) -> Control:
        """The same control read again (its position now)."""
        return next(c for c in self.controls() if (c.kind, c.nth) == (control.kind, control.nth))

    def picture(self) -> dict[str, tuple]:
        """Region -> the canonical HTML of the frame shown in it."""
        return {f["region"] or "": canonical(f["html"]) for f in self.locator.evaluate(script("read_picture"))}

    def signature(self) -> str:
        return json.dumps(self.locator.evaluate(script("read_picture")))

    def text_contrast(self) -> list[dict]:
        return self.locator.evaluate(script("text_contrast"))

    def layout(self) -> dict:
        return self.locator.evaluate(script("layout_report"))

    # --- moving it -------------------------------------------------------------------------------------------------
    def _widget(self, control: Control) -> object:
        selector = {"slider": ".widget-slider", "toggle": ".widget-toggle-buttons", "dropdown": ".widget-dropdown"}
        return self.locator.locator(selector[control.kind]).nth(control.nth)

    def press(self, control: Control, key: str) -> None:
        """One key on a slider's handle (re-focused first: Left/Right are also JupyterLab shortcuts)."""
        handle = self._widget(control).locator(".noUi-handle")
        handle.focus()
        self.page.keyboard.press(key)

    def move(self, control: Control, to: int | str) -> int:
        """Move a control as a learner would and return its new position: a slider by a key on its handle (`to` a
        key name: Home, End, ArrowLeft, ArrowRight, PageUp, PageDown), a toggle by a click on a button and a
        drop-down by a choice (`to` the option's index)."""
        before = self.control(control).position
        if control.kind == "slider":
            if not isinstance(to, str):
                raise TypeError(f"a slider moves by key name, got {to!r}")
            self.press(control, to)
        elif control.kind == "toggle":
            self._widget(control).locator("button").nth(to).click()
        else:
            self._widget(control).locator("select").select_option(index=to)
        now = self.control(control).position
        low, high = control.positions if control.kind == "slider" else (0, len(control.positions) - 1)
        wanted = {"Home": low, "End": high}.get(to, to) if control.kind != "slider" or to in ("Home", "End") else None
        if wanted is not None:
            assert now == wanted, f"{control.name}: moved to {now}, not {wanted}"
        elif to in ("ArrowLeft", "PageDown"):
            assert now < before, f"{control.name}: {to} moved {before} to {now}"
        elif to in ("ArrowRight", "PageUp"):
            assert now > before, f"{control.name}: {to} moved {before} to {now}"
        return now

    # --- what the kernel says ------------------------------------------------------------------------------------
    def kernel_state(self) -> dict:
        """The explorer's control values, the picture drawn afresh for them, and its last error, from its kernel."""
        if self.number is None:
            raise AssertionError("explorer without its ah-explorer-N class: is ATTENTION_HELPERS_INSTRUMENT=1 set?")
        code = (
            "import json\nfrom attention_helpers.explore import Explorer\n"
            f"_e = Explorer.instances[{self.number}]()\n"
            "print(json.dumps({'values': {k: repr(v) for k, v in _e.values().items()}, 'views': _e.expected_svgs(), "
            "'error': None if _e.last_error is None else repr(_e.last_error)}))"
        )
        text = jlab.kernel_execute(self.page, code)
        try:
            state = json.loads(text)
        except json.JSONDecodeError:
            raise AssertionError(f"explorer {self.number}: the kernel answered {text[:500]!r}") from None
        state["views"] = {k: canonical(v) for k, v in state["views"].items()}
        return state

    def wait_until_shows_expected(self, control: Control, before: dict | None = None, timeout_s: float = 10) -> dict:
        """Wait until the kernel holds a new value (if `before`, the kernel state before the move, is given) and the
        picture on screen is the one the kernel draws afresh for it; returns the kernel state. Fails with which
        regions differ."""
        deadline = time.monotonic() + timeout_s
        while True:
            state = self.kernel_state()
            shown = self.picture()
            moved = before is None or state["values"] != before["values"]
            if moved and shown == state["views"]:
                return state
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert moved, f"{control.name}: the kernel still holds {state['values']} after the move"
        assert shown.keys() == state["views"].keys(), (
            f"{control.name}: regions on screen {sorted(shown)}, expected {sorted(state['views'])}"
        )
        bad = sorted(k for k in shown if shown[k] != state["views"][k])
        raise AssertionError(
            f"{control.name} at {self.control(control).position}: region(s) {bad} on screen differ from the picture "
            f"the kernel draws for {state['values']}"
        )

    def wait_for_new_picture(self, before: str, timeout_s: float = 10) -> str:
        deadline = time.monotonic() + timeout_s
        while (now := self.signature()) == before:
            assert time.monotonic() < deadline, "the picture did not change"
            time.sleep(0.02)
        return now


class ExplorerPage:
    """A notebook open in JupyterLab (its notebook panel), or a static page (`scope="body"`: no kernel there)."""

    def __init__(self, page: object, scope: str | None = None):
        self.page = page
        self.panel = scope or jlab.panel_selector(page)

    def run_all(self) -> dict:
        return jlab.run_all(self.page)

    def errors(self) -> list:
        return self.page.evaluate(jlab.STATE_JS)["errors"]

    def explorers(self, expected: int | None = None, timeout_s: float = 30) -> list[Explorer]:
        """The explorers in this notebook, once `expected` of them show a picture."""
        selector = f"{self.panel} .ah-explorer"
        if expected:
            self.page.wait_for_function(
                f"() => document.querySelectorAll('{selector}').length >= {expected} && "
                f"[...document.querySelectorAll('{selector}')].every(e => e.querySelector('.ah-view svg, .ah-view img'))",
                timeout=timeout_s * 1000,
            )
        locators = self.page.locator(selector)
        return [Explorer(self.page, locators.nth(i)) for i in range(locators.count())]


def committed_explorers(path: Path) -> int:
    """How many explorers a committed notebook displays (outputs whose text/plain is an explorer's)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return sum(
        1
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.outputs
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        and EXPLORER_OUTPUT.match(o["data"].get("text/plain", ""))
    )
