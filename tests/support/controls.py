"""Operating every control of an explorer in a browser page as a learner would, for the browser tests of the book
(tests/browser/test_book.py) and of the lecture decks (tests/browser/test_slides.py)."""

from __future__ import annotations

import time
from collections.abc import Callable

# what an explorer shows: the HTML of its visible pictures
SIGNATURE_JS = """(e) => [...e.querySelectorAll('.ah-view')].filter(v => v.checkVisibility())
    .map(v => v.innerHTML).join('|')"""


def wait_for_change(explorer, before: str, signature_js: str = SIGNATURE_JS, timeout_s: float = 5) -> bool:
    """Wait until the explorer shows something else than `before`; True if it did within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if explorer.evaluate(signature_js) != before:
            return True
        time.sleep(0.03)
    return False


def try_changes(explorer, attempts: list[Callable[[], bool]], signature_js: str = SIGNATURE_JS) -> bool:
    """Make each change in turn until the picture changes; True if one did (a change returning False was a no-op)."""
    for change in attempts:
        before = explorer.evaluate(signature_js)
        if change() is False:  # the control was already there
            continue
        if wait_for_change(explorer, before, signature_js):
            return True
    return False


def key_press(page, handle, name: str) -> Callable[[], bool]:
    """A change: focus a slider's handle and press a key; False if its value did not move."""

    def press() -> bool:
        old = handle.get_attribute("aria-valuenow")
        handle.focus()
        page.keyboard.press(name)
        return handle.get_attribute("aria-valuenow") != old

    return press


def click_unless_active(button) -> Callable[[], bool]:
    """A change: click a toggle button, unless it is the active one already (then False)."""

    def click() -> bool:
        if "mod-active" in (button.get_attribute("class") or ""):
            return False
        button.click()
        return True

    return click


def choose(select, index: int) -> Callable[[], bool]:
    """A change: pick option `index` of a drop-down, unless it is picked already (then False)."""

    def pick() -> bool:
        if select.evaluate("s => s.selectedIndex") == index:
            return False
        select.select_option(index=index)
        return True

    return pick


def exercise(page, explorer, name: str, slider_keys: list[str], signature_js: str = SIGNATURE_JS) -> list[str]:
    """Change every control of one explorer (sliders with `slider_keys`, toggle buttons, drop-downs, checkboxes);
    returns a description of each control whose change showed nothing, or that is disabled without the note that
    says a kernel drives it."""
    dead, checked = [], 0
    note = explorer.locator(".ah-kernel-note")

    def disabled(control, label: str) -> bool:
        if control.evaluate("c => c.disabled || c.hasAttribute('disabled') || c.closest('[disabled]') !== null"):
            if not (note.count() and note.first.is_visible()):
                dead.append(f"{label} is disabled without the kernel note")
            return True
        return False

    def check(label: str, attempts: list[Callable[[], bool]]) -> None:
        nonlocal checked
        checked += 1
        if not try_changes(explorer, attempts, signature_js):
            dead.append(label)

    handles = explorer.locator(".noUi-handle")
    for i in range(handles.count()):
        handle = handles.nth(i)
        if not disabled(handle, f"{name} slider {i}"):
            check(f"{name} slider {i}", [key_press(page, handle, k) for k in slider_keys])
    groups = explorer.locator(".widget-toggle-buttons")
    for g in range(groups.count()):
        buttons = groups.nth(g).locator("button")
        if not disabled(buttons.first, f"{name} toggle buttons {g}"):
            check(f"{name} toggle buttons {g}", [click_unless_active(buttons.nth(k)) for k in range(buttons.count())])
    selects = explorer.locator(".widget-dropdown select")
    for s in range(selects.count()):
        select = selects.nth(s)
        if not disabled(select, f"{name} drop-down {s}"):
            check(f"{name} drop-down {s}", [choose(select, k) for k in range(select.locator("option").count())])
    boxes = explorer.locator(".widget-checkbox input[type=checkbox]")
    for c in range(boxes.count()):
        box = boxes.nth(c)
        if not disabled(box, f"{name} checkbox {c}"):
            check(f"{name} checkbox {c}", [box.click, box.click])
    if not (checked or note.count()):
        dead.append(f"{name}: no control found")
    return dead
