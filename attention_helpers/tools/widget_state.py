"""Widget state stored in a notebook, made small and reproducible: `canonical(nb)` keeps only the models that what
the notebook shows needs, without the attributes equal to their defaults, and names each by a hash of its content,
so that executing a notebook twice stores the same state byte for byte (`git diff` stays empty) and a reader's
browser finds every model an output displays.

The kernel names each widget model by a random comm id, and the executor (nbclient `store_widget_state=True`)
records every model ever opened, closed ones included. Here a model is kept if an output displays it, if a kept
model refers to it (`"IPY_MODEL_<id>"`, e.g. a box's children), or if it is a link (`jslink`/`jsdlink`) that drives
a kept model, then the link's other end is kept too. A kept model's id becomes the hash of its state with every
reference replaced by the referred model's new id (a Merkle tree: one changed picture changes only its own models'
ids), shortened to the shortest unique prefix of at least 6 hex digits; models with identical content are told
apart by the order in which the outputs reach them. `keep_displayed` serves the save hook (`save_hook`).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import os
import re
from collections.abc import Iterator

__all__ = [
    "IDENTITY",
    "ID_MIN",
    "LINKS",
    "PREFIX",
    "STATE_MIME",
    "VIEW_MIME",
    "canonical",
    "displayed_ids",
    "drop_defaults",
    "keep_displayed",
    "needed",
    "references",
    "state_of",
    "state_size",
]

STATE_MIME = "application/vnd.jupyter.widget-state+json"
VIEW_MIME = "application/vnd.jupyter.widget-view+json"
PREFIX = "IPY_MODEL_"
LINKS = {"LinkModel": ("source", "target"), "DirectionalLinkModel": ("target",)}  # the ends a link drives
ID_MIN = 6  # hex digits of sha256 at least; more where two models' digests share a longer prefix
IDENTITY = (  # which model and view a state is for, in ipywidgets' registry order
    "_model_module",
    "_model_module_version",
    "_model_name",
    "_view_module",
    "_view_module_version",
    "_view_name",
)


def state_of(nb: dict) -> dict[str, dict]:
    """The notebook's stored widget models by id ({} when it stores none)."""
    return nb.get("metadata", {}).get("widgets", {}).get(STATE_MIME, {}).get("state", {})


def displayed_ids(nb: dict) -> list[str]:
    """Model ids of the widgets the outputs display, in cell and output order."""
    ids = []
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(VIEW_MIME)
            if view and view.get("model_id"):
                ids.append(view["model_id"])
    return ids


def _walk(value: object) -> Iterator[str]:
    """Every string inside a JSON value, dict keys sorted, lists in order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key in sorted(value):
            yield from _walk(value[key])
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def references(model: dict) -> list[str]:
    """Ids of the models this model's state refers to, in a fixed order (state keys sorted, lists in order)."""
    return [s[len(PREFIX) :] for s in _walk(model.get("state", {})) if s.startswith(PREFIX)]


def _replace(value: object, ids: dict[str, str]) -> object:
    """A copy of a JSON value with every model reference renamed by ids."""
    if isinstance(value, str):
        return PREFIX + ids[value[len(PREFIX) :]] if value.startswith(PREFIX) else value
    if isinstance(value, dict):
        return {key: _replace(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace(item, ids) for item in value]
    return value


def needed(state: dict[str, dict], shown: list[str]) -> list[str]:
    """Ids of the models the displayed widgets need, in the order the outputs reach them; links last."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(model_id: str) -> None:
        stack = [model_id]
        while stack:
            current = stack.pop()
            if current in seen or current not in state:
                continue
            seen.add(current)
            order.append(current)
            stack.extend(reversed(references(state[current])))

    def end(link: dict, name: str) -> tuple[str, list]:
        value = link.get("state", {}).get(name)
        if not (isinstance(value, list) and value and isinstance(value[0], str)):
            return "", []
        return value[0].removeprefix(PREFIX), value[1:]

    def link_key(link_id: str) -> list:
        """Where the link's ends are (their place in `order`, or their content without ids): never the ids, so
        that links, and the ends only they reach, come in the same order whatever ids the kernel gave."""
        key = []
        for name in ("target", "source"):
            ref, attribute = end(state[link_id], name)
            if ref in seen:
                key.append((0, order.index(ref), attribute))
            else:
                content = json.dumps(state.get(ref, {}).get("state", {}), sort_keys=True)
                key.append((1, re.sub(PREFIX + r"\w+", "", content), attribute))
        return key

    for model_id in shown:
        visit(model_id)
    links = [i for i, m in state.items() if m.get("model_name") in LINKS]
    changed = True
    while changed:  # a link may drive a model that only another link's end reaches
        changed = False
        for link_id in sorted((i for i in links if i not in seen), key=link_key):
            if link_id in seen:
                continue
            driven = [end(state[link_id], name)[0] for name in LINKS[state[link_id]["model_name"]]]
            if any(ref in seen for ref in driven):
                seen.add(link_id)
                order.append(link_id)
                for other in references(state[link_id]):
                    visit(other)
                changed = True
    return order


def _digest(model: dict, digests: dict[str, str], occurrence: int) -> str:
    content = json.dumps(
        {"model": {k: v for k, v in model.items() if k != "state"}, "state": _replace(model["state"], digests)},
        sort_keys=True,
        ensure_ascii=True,
    )
    return hashlib.sha256(f"{content}#{occurrence}".encode()).hexdigest()


def _short(digests: list[str], minimum: int = ID_MIN) -> dict[str, str]:
    """Each digest's shortest prefix of at least `minimum` digits that no other digest starts with."""
    ordered = sorted(set(digests))
    short = {}
    for i, digest in enumerate(ordered):
        shared = max(
            (len(os.path.commonprefix([digest, other])) for other in ordered[max(i - 1, 0) : i + 2] if other != digest),
            default=0,
        )
        short[digest] = digest[: max(minimum, shared + 1)]
    return short


@functools.cache
def _defaults(identity: tuple) -> dict[str, object]:
    """The state a model of this kind starts with, as the ipywidgets class registered for exactly this model and
    view declares it ({} if none is: nothing is dropped). Attributes that hold other models (layout, style,
    children, link ends) are left out: they are never dropped."""
    import ipywidgets
    from ipywidgets.widgets.widget import _registry

    cls = next((c for k, c in _registry.items() if k == identity), None)
    if cls is None:
        return {}
    blank = cls.__new__(cls)  # trait defaults without __init__: no comm opened, no options required
    defaults = {}
    for key in blank.keys:
        trait = blank.traits()[key]
        if isinstance(trait, ipywidgets.widgets.trait_types.InstanceDict):
            continue
        try:
            value = getattr(blank, key)
        except Exception:  # a default that needs __init__: never dropped
            continue
        if isinstance(value, ipywidgets.Widget) or (
            isinstance(value, (list, tuple)) and any(isinstance(v, ipywidgets.Widget) for v in value)
        ):
            continue
        to_json = blank.trait_metadata(key, "to_json", blank._trait_to_json)
        defaults[key] = json.loads(json.dumps(to_json(value, blank)))
    return defaults


def drop_defaults(model: dict) -> dict:
    """A copy of one stored model without the attributes that equal their defaults (the browser's model class
    fills them in), as JupyterLab saves widget state with `saveState`. Which model class to make stays outside
    the state (`model_name`, `model_module`, `model_module_version`), as the widget-state schema requires."""
    defaults = _defaults(tuple(model["state"].get(k) for k in IDENTITY))
    state = {k: v for k, v in model["state"].items() if k not in defaults or defaults[k] != v}
    if model.get("model_name") == "StackModel" and not any(state.get("titles", [])):
        state.pop("titles", None)  # a Stack shows no titles; ipywidgets pads them with "" to one per child
    return {**model, "state": state}


def canonical(nb: dict) -> dict:
    """A copy of the notebook whose widget state holds only what its outputs need, without defaults, under ids
    derived from the content."""
    nb = copy.deepcopy(nb)
    state = state_of(nb)
    if not state:
        nb.get("metadata", {}).pop("widgets", None)
        return nb
    shown = displayed_ids(nb)
    missing = [i for i in shown if i not in state]
    if missing:
        raise ValueError(f"outputs display widget models that the stored state lacks: {missing[:3]}")
    order = needed(state, shown)
    state = {i: drop_defaults(state[i]) for i in order}
    digests: dict[str, str] = {}
    counts: dict[str, int] = {}

    def name(model_id: str, path: tuple[str, ...] = ()) -> str:
        if model_id in digests:
            return digests[model_id]
        if model_id not in state:
            raise ValueError(f"widget model {path[-1]} refers to {model_id}, which the stored state lacks")
        if model_id in path:
            raise ValueError(f"widget model {model_id} refers to itself through {list(path)}")
        for child in references(state[model_id]):
            name(child, (*path, model_id))
        plain = _digest(state[model_id], digests, 0)
        counts[plain] = counts.get(plain, 0) + 1
        digests[model_id] = plain if counts[plain] == 1 else _digest(state[model_id], digests, counts[plain] - 1)
        return digests[model_id]

    for model_id in order:
        name(model_id)
    short = _short(list(digests.values()))
    ids = {model_id: short[digest] for model_id, digest in digests.items()}
    new_state = {ids[i]: {**state[i], "state": _replace(state[i]["state"], ids)} for i in order}
    nb["metadata"]["widgets"] = {STATE_MIME: {"state": new_state, "version_major": 2, "version_minor": 0}}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(VIEW_MIME)
            if view and view.get("model_id"):
                view["model_id"] = ids[view["model_id"]]
    return nb


def keep_displayed(new: dict, old: dict) -> list[str]:
    """Add to notebook `new` (in place: it is the model being saved) the stored models of `old` (the file it
    replaces) that its outputs display but its own state lacks, with what they need; returns the ids added.

    JupyterLab with `saveState` writes only the widgets live in the kernel, so saving a notebook whose widgets were
    loaded from the file (opened and not re-run, or re-run in part) would otherwise drop their state."""
    state = state_of(new)
    missing = [i for i in displayed_ids(new) if i not in state]
    old_state = state_of(old)
    if not missing or not old_state:
        return []
    added = [i for i in needed(old_state, missing) if i not in state]
    if not added:
        return []
    widgets = new.setdefault("metadata", {}).setdefault("widgets", {})
    stored = widgets.setdefault(STATE_MIME, {"version_major": 2, "version_minor": 0})
    stored.setdefault("state", {}).update({i: old_state[i] for i in added})
    return added


def state_size(nb: dict) -> int:
    """Bytes of the widget state as a page embeds it (compact JSON, UTF-8)."""
    state = nb.get("metadata", {}).get("widgets", {}).get(STATE_MIME)
    if not state:
        return 0
    return len(json.dumps(state, separators=(",", ":"), ensure_ascii=False).encode())
