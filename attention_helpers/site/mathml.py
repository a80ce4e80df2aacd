"""TeX in markdown (`$...$`, `$$...$$`) turned into MathML when the site is built, so that pages typeset math
with no script and no download (Chromium renders MathML Core; so do Firefox and Safari).

Code spans and fenced code are left alone, and so is a `$` that does not open a formula (a price, an escaped
`\\$`). Conversion by latex2mathml (MIT licence).
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["MATH", "tex_to_mathml", "typeset"]

_CODE = re.compile(r"^(```+|~~~+)[^\n]*\n.*?^\1[ \t]*$|(`+).+?\2", flags=re.M | re.S)  # fenced code, code spans
_FORMULA = re.compile(
    r"\$\$(?P<display>.+?)\$\$"  # display math, may span lines
    r"|(?<![\\$])\$(?P<inline>[^\s$](?:[^$\n]*?[^\s\\$])?)\$(?!\d)",  # inline: not "$ 5", "\\$", "$5 and $10"
    flags=re.S,
)
MATH = re.compile(r"(?<![\\$])\$\$?[^$]+\$\$?")  # what must not be left in rendered text


_VARIANT = re.compile(r'<(?P<tag>mi|mn) mathvariant="(?P<variant>[a-z-]+)">(?P<text>[^<]+)</(?P=tag)>')
_LETTERLIKE = {"double-struck": "DOUBLE-STRUCK", "script": "SCRIPT", "fraktur": "BLACK-LETTER"}  # e.g. ℝ, ℒ, ℭ


def _styled(char: str, variant: str) -> str | None:
    """The Unicode mathematical letter for char in a variant (bold q -> 𝐪, double-struck R -> ℝ), if there is one."""
    name = unicodedata.name(char, "")
    match = re.fullmatch(r"(LATIN|GREEK) (CAPITAL|SMALL) LETTER (\w+)|DIGIT (\w+)", name)
    if not match:
        return None
    style = variant.upper().replace("-", " ")
    if match.group(4):
        names = [f"MATHEMATICAL {style} DIGIT {match.group(4)}"]
    else:
        case, letter = match.group(2), match.group(3)
        names = [f"MATHEMATICAL {style} {case} {letter}"]
        if variant in _LETTERLIKE and case == "CAPITAL":
            names.append(f"{_LETTERLIKE[variant]} CAPITAL {letter}")
    for candidate in names:
        try:
            return unicodedata.lookup(candidate)
        except KeyError:
            continue
    return None


def _unicode_variants(markup: str) -> str:
    """`<mi mathvariant="bold">q</mi>` as `<mi>𝐪</mi>` (and `<mn>`): MathML Core (Chromium) ignores mathvariant other than
    "normal", and draws Unicode's mathematical letters instead; letters with no such form keep the attribute."""

    def replace(match: re.Match) -> str:
        text = html.unescape(match.group("text"))
        styled = [_styled(c, match.group("variant")) for c in text]
        if any(s is None for s in styled):
            return match.group(0)
        return f"<{match.group('tag')}>{html.escape(''.join(styled))}</{match.group('tag')}>"

    return _VARIANT.sub(replace, markup)


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """One formula as a `<math>` element (block when display), or a ValueError naming the formula."""
    from latex2mathml.converter import convert

    try:
        markup = convert(tex.strip(), display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises its own exception types
        raise ValueError(f"cannot turn this TeX into MathML: {tex.strip()!r} ({type(error).__name__})") from error
    unknown = re.findall(r">(\\[A-Za-z]+)<", markup)  # a command latex2mathml does not know, kept as text
    if unknown:
        raise ValueError(f"cannot turn this TeX into MathML: {tex.strip()!r} (unknown {', '.join(unknown)})")
    label = html.escape(" ".join(tex.split()), quote=True)
    return _unicode_variants(markup).replace("<math ", f'<math alttext="{label}" ', 1)


def typeset(markdown: str) -> str:
    """The markdown with every formula outside code replaced by MathML."""
    code: list[str] = []

    def hide(match: re.Match) -> str:
        code.append(match.group(0))
        return f"\x00{len(code) - 1}\x00"

    def formula(match: re.Match) -> str:
        if match.group("display") is not None:
            return tex_to_mathml(match.group("display"), display=True)  # a block-level <math>, even inside a <p>
        return tex_to_mathml(match.group("inline"))

    hidden = _CODE.sub(hide, markdown)
    typeset_ = _FORMULA.sub(formula, hidden)
    return re.sub("\x00(\\d+)\x00", lambda m: code[int(m.group(1))], typeset_)
