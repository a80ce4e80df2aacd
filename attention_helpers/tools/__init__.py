"""Maintainer tooling: commands that build, refresh and check the series (not imported by notebooks)."""

__all__: list[str] = []
