"""A Jupyter Server extension that keeps explorers alive in saved notebooks (enabled for this environment by
jupyter-config/, which requirements.txt installs).

JupyterLab saves the widgets' state into a notebook when its `saveState` setting is on (jupyter-config/ turns it
on), but only the widgets live in the kernel. A notebook opened from disk and saved without re-running its cells
(or JupyterLab's autosave after opening it) would lose the state its outputs display, and show "Error displaying
widget: model not found" when next opened. Before every save this hook copies back, from the file being replaced,
the state of each displayed widget the browser did not send (`widget_state.keep_displayed`). It never blocks a save.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from .widget_state import keep_displayed

__all__ = ["keep_widget_state"]

_log = logging.getLogger(__name__)


def keep_widget_state(model: dict, path: str, contents_manager: object, **kwargs: object) -> None:
    """Pre-save hook: complete the widget state of a notebook being saved from the file it replaces."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    os_path = getattr(contents_manager, "_get_os_path", None)  # file-backed managers, sync or async alike
    if os_path is None:
        return
    try:
        file = Path(os_path(path))
        if not file.is_file():
            return
        old = json.loads(file.read_text(encoding="utf-8"))
        added = keep_displayed(model["content"], old)
    except Exception:  # a hook must never cost the learner a save
        _log.warning("attention_helpers: could not keep the widget state of %s", path, exc_info=True)
        return
    if added:
        _log.info("attention_helpers: kept the stored state of %d widget model(s) in %s", len(added), path)


def _jupyter_server_extension_points() -> list[dict]:
    return [{"module": "attention_helpers.tools.save_hook"}]


def _load_jupyter_server_extension(server_app: object) -> None:
    server_app.contents_manager.register_pre_save_hook(keep_widget_state)
