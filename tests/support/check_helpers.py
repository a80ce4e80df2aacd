"""What the tests of the exercises' checks share: reading a check's verdict, and an unsolved exercise."""

from __future__ import annotations

from attention_helpers.checks import CheckResult


def says(result: object, label: str, *phrases: str) -> None:
    """The check failed, its message starts with ❌ and its label, and says each phrase."""
    text = repr(result)
    assert isinstance(result, CheckResult) and not result, text
    assert text.startswith(f"❌ {label}"), text
    for phrase in phrases:
        assert phrase in text, (phrase, text)


def unsolved(*args: object) -> None:
    """An exercise as the notebook hands it out: its body raises NotImplementedError."""
    raise NotImplementedError
