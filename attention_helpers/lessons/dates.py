"""Translate human-written dates into ISO dates: the data, and a character-level encoder-decoder with attention.

The task is the classic "neural machine translation of dates" exercise (deeplearning.ai's Sequence Models course,
after Bahdanau, Cho & Bengio, 2015, "Neural machine translation by jointly learning to align and translate"):
"Tuesday 25 November 2026", "11/25/26" or "the 25th of nov, 2026" become "2026-11-25". The data is generated here,
seeded, English only. Vocabulary: B dates, L input characters, T = 10 output characters, E embedding size,
H hidden size per encoder direction, D = 2H the encoder's and the decoder's state size.

Each numeric order has its own separator, so that every input names one date: "." for day.month.year,
"/" for month/day/year, "-" for year-month-day. Two-digit years follow POSIX `strptime`'s %y: 69-99 are 1969-1999,
00-68 are 2000-2068, so every date lies in 1969-01-01 .. 2068-12-31.
"""

from __future__ import annotations

import calendar
import datetime
import functools
import itertools
import random
import re
from dataclasses import dataclass

import torch
from torch import nn

from .. import _validate as check
from ..layers import AdditiveAttention, DotProductAttention

__all__ = [
    "ATTENTIONS",
    "BOS",
    "FIRST_DATE",
    "LAST_DATE",
    "MONTHS",
    "OUTPUT_LENGTH",
    "PAD",
    "WEEKDAYS",
    "DateFormat",
    "DateSet",
    "DateTranslator",
    "FIELDS",
    "FORMATS",
    "HELD_OUT_FORMATS",
    "INPUT_CHARS",
    "OUTPUT_CHARS",
    "OUTPUT_FIELDS",
    "decode_outputs",
    "encode_inputs",
    "encode_outputs",
    "impossible_dates",
    "make_dates",
    "not_a_date",
    "read_date",
    "render_date",
    "unreadable",
]

FIRST_DATE, LAST_DATE = datetime.date(1969, 1, 1), datetime.date(2068, 12, 31)
MONTHS = ("January February March April May June July August September October November December").split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
FIELDS = ("day", "month", "year")
# Which output characters of "YYYY-MM-DD" come from which field.
OUTPUT_FIELDS = {"year": (0, 1, 2, 3), "month": (5, 6), "day": (8, 9)}
OUTPUT_LENGTH = 10

PAD = 0  # the input padding token
INPUT_CHARS = "\0" + " ,./-" + "0123456789" + "abcdefghijklmnopqrstuvwxyz" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
OUTPUT_CHARS = "0123456789-"
BOS = len(OUTPUT_CHARS)  # the decoder's first input, "begin"; not an output
_INPUT_INDEX = {c: i for i, c in enumerate(INPUT_CHARS)}

ATTENTIONS = ("additive", "dot", "none")
_SEPARATORS = {"DMY": ".", "MDY": "/", "YMD": "-"}  # numeric dates: the separator tells the order


@dataclass(frozen=True)
class DateFormat:
    """One way to write a date: field order, and the style of the day, month, year and weekday."""

    order: str  # "DMY", "MDY" or "YMD"
    day: str  # "d" (5), "dd" (05) or "ord" (5th)
    month: str  # "m" (11), "mm" (05), "name" (November) or "abbr" (Nov)
    year: str  # "yyyy" or "yy"
    weekday: str  # "none", "name" (Tuesday) or "abbr" (Tue)

    def __post_init__(self) -> None:
        choices = {
            "order": ("DMY", "MDY", "YMD"),
            "day": ("d", "dd", "ord"),
            "month": ("m", "mm", "name", "abbr"),
            "year": ("yyyy", "yy"),
            "weekday": ("none", "name", "abbr"),
        }
        for name, allowed in choices.items():
            check.one_of(name, getattr(self, name), allowed)
        if self.month in ("m", "mm") and self.day == "ord":
            raise ValueError(f"fmt is not one of FORMATS: {self} writes an ordinal day with a numeric month")
        if self.month in ("name", "abbr") and self.order == "YMD" and self.year == "yy":
            raise ValueError(f"fmt is not one of FORMATS: {self} would also read as day-month-year")

    def __str__(self) -> str:
        return f"{self.order} day={self.day} month={self.month} year={self.year} weekday={self.weekday}"


def _all_formats() -> tuple[DateFormat, ...]:
    formats = []
    for order, day, month, year, weekday in itertools.product(
        ("DMY", "MDY", "YMD"), ("d", "dd", "ord"), ("m", "mm", "name", "abbr"), ("yyyy", "yy"), ("none", "name", "abbr")
    ):
        if month in ("m", "mm") and day == "ord":
            continue  # "25th.11.2026" is nobody's way of writing a date
        if month in ("name", "abbr") and order == "YMD" and year == "yy":
            continue  # "13 Mar 17" would also read as day-month-year ("2013 Mar 17" with a two-digit year)
        formats.append(DateFormat(order, day, month, year, weekday))
    return tuple(formats)


FORMATS = _all_formats()  # 162 formats
_FORMAT_SET = frozenset(FORMATS)  # `in` by hash: a tuple compares up to 162 dataclasses for each date rendered
HELD_OUT_FORMATS = frozenset(random.Random(2015).sample(FORMATS, 24))  # 15 %: never in training data
_TRAIN_FORMATS = tuple(f for f in FORMATS if f not in HELD_OUT_FORMATS)
_HELD_OUT_LIST = tuple(f for f in FORMATS if f in HELD_OUT_FORMATS)


def _date_pools() -> tuple[list[datetime.date], list[datetime.date]]:
    """Every date in range, split 90/10 at random (seeded): training dates, held-out dates."""
    days = [FIRST_DATE + datetime.timedelta(i) for i in range((LAST_DATE - FIRST_DATE).days + 1)]
    random.Random(1409).shuffle(days)  # 1409.0473: Bahdanau et al.'s arXiv number
    cut = len(days) // 10
    return sorted(days[cut:]), sorted(days[:cut])


_TRAIN_DATES, _HELD_OUT_DATES = _date_pools()


def _case(word: str, case: str) -> str:
    return {"title": word, "lower": word.lower(), "upper": word.upper()}[case]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def render_date(date: datetime.date, fmt: DateFormat, rng: random.Random) -> tuple[str, dict[str, tuple[int, int]]]:
    """One date written in one format -> (text, {field: (start, end) of its characters in text})."""
    if isinstance(date, datetime.datetime):
        raise TypeError(f"date must be a datetime.date, got a datetime.datetime {date!r}; pass its .date()")
    if not isinstance(date, datetime.date):
        raise TypeError(f"date must be a datetime.date in {FIRST_DATE} .. {LAST_DATE}, got {check.describe(date)}")
    if not FIRST_DATE <= date <= LAST_DATE:
        raise ValueError(f"date must be a datetime.date in {FIRST_DATE} .. {LAST_DATE}, got {check.describe(date)}")
    if not isinstance(fmt, DateFormat) or fmt not in _FORMAT_SET:
        raise ValueError(f"fmt must be one of FORMATS (a DateFormat), got {check.describe(fmt)}")
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, got {check.describe(rng)}")
    case = rng.choice(("title", "title", "lower", "upper"))
    day = {"d": str(date.day), "dd": f"{date.day:02d}", "ord": _ordinal(date.day)}[fmt.day]
    year = f"{date.year}" if fmt.year == "yyyy" else f"{date.year % 100:02d}"
    named = fmt.month in ("name", "abbr")
    if named:
        month = MONTHS[date.month - 1] if fmt.month == "name" else MONTHS[date.month - 1][:3]
        dot = fmt.month == "abbr" and date.month != 5 and rng.random() < 0.3  # "Nov.", but never "May."
        month = _case(month, case) + ("." if dot else "")
    else:
        month = str(date.month) if fmt.month == "m" else f"{date.month:02d}"
    # The pieces in order: (text, field or None); literal words and punctuation carry no field.
    parts: list[tuple[str, str | None]] = []
    if rng.random() < 0.1:
        parts.append(("on ", None))
    if fmt.weekday != "none":
        weekday = WEEKDAYS[date.weekday()]
        weekday = _case(weekday if fmt.weekday == "name" else weekday[:3], case)
        parts.append((weekday + rng.choice((" ", ", ")), None))
    if not named:
        sep = _SEPARATORS[fmt.order]
        texts = {"D": (day, "day"), "M": (month, "month"), "Y": (year, "year")}
        for i, key in enumerate(fmt.order):
            parts += [texts[key]] + ([(sep, None)] if i < 2 else [])
    elif fmt.order == "DMY":
        the = fmt.day == "ord" and rng.random() < 0.5
        parts += [("the ", None)] if the else []
        parts += [(day, "day"), (" of " if the else " ", None), (month, "month")]
        parts += [(rng.choice((" ", ", ")), None), (year, "year")]
    elif fmt.order == "MDY":
        parts += [(month, "month"), (" ", None), (day, "day"), (rng.choice((" ", ", ")), None), (year, "year")]
    else:
        parts += [(year, "year"), (rng.choice((" ", ", ")), None), (month, "month"), (" ", None), (day, "day")]
    text, spans = "", {}
    for piece, name in parts:
        if name is not None:
            spans[name] = (len(text), len(text) + len(piece))
        text += piece
    return text, spans


@dataclass(frozen=True)
class DateSet:
    """N generated dates: input texts, ISO outputs, each field's character span, format, unseen-format flags."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    spans: tuple[dict[str, tuple[int, int]], ...]
    formats: tuple[DateFormat, ...]
    unseen_format: tuple[bool, ...]

    def __post_init__(self) -> None:
        fields = (self.inputs, self.outputs, self.spans, self.formats, self.unseen_format)
        for name, value in zip(("inputs", "outputs", "spans", "formats", "unseen_format"), fields, strict=True):
            if not isinstance(value, tuple):
                raise TypeError(f"{name} must be a tuple with one entry per date, got {check.describe(value)}")
        if len({len(f) for f in fields}) != 1 or not self.inputs:
            raise ValueError(
                "inputs, outputs, spans, formats and unseen_format must have one entry per date, got lengths "
                f"{[len(f) for f in fields]}"
            )
        for i, (text, output, span, fmt, unseen) in enumerate(zip(*fields, strict=True)):
            check.text(f"inputs[{i}]", text)
            if not text or any(c not in _INPUT_INDEX or c == "\0" for c in text):
                raise ValueError(f"inputs[{i}] must be a non-empty text of the characters in INPUT_CHARS, got {text!r}")
            if reason := _not_iso(check.text(f"outputs[{i}]", output)):
                raise ValueError(f"outputs[{i}] must be an ISO date such as '2026-11-25', got {output!r}: {reason}")
            if not isinstance(fmt, DateFormat):
                raise TypeError(f"formats[{i}] must be a DateFormat, got {check.describe(fmt)}")
            check.boolean(f"unseen_format[{i}]", unseen)
            if not isinstance(span, dict) or set(span) != set(FIELDS):
                raise ValueError(
                    f"spans[{i}] must be a dict {{field: (start, end)}} with the fields {list(FIELDS)}, got "
                    f"{check.describe(span)}"
                )
            for name in FIELDS:
                bounds = span[name]
                ok = isinstance(bounds, tuple) and len(bounds) == 2
                ok = ok and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
                if not ok or not 0 <= bounds[0] < bounds[1] <= len(text):
                    raise ValueError(
                        f"spans[{i}]['{name}'] must be a pair of ints (start, end) with 0 <= start < end <= "
                        f"len(inputs[{i}]) = {len(text)}, got {check.describe(bounds)}"
                    )

    def __len__(self) -> int:
        return len(self.inputs)

    def __repr__(self) -> str:
        return f"DateSet({len(self)} dates, e.g. {self.inputs[0]!r} -> {self.outputs[0]!r})"

    def span_masks(self, length: int | None = None) -> dict[str, torch.Tensor]:
        """{field: (N, L) bool, True on the field's input characters}; L = longest input unless given."""
        longest = max(len(t) for t in self.inputs)
        length = longest if length is None else check.int_at_least("length", length, longest)
        columns = torch.arange(length)  # (L,)
        masks = {}
        for name in FIELDS:
            bounds = torch.tensor([s[name] for s in self.spans])  # (N, 2)
            masks[name] = (columns >= bounds[:, :1]) & (columns < bounds[:, 1:])  # (N, L)
        return masks


def make_dates(n: int, split: str = "train", seed: int = 0) -> DateSet:
    """n (input, ISO output) pairs. split="train": training dates and formats; "held_out": dates training never
    sees, every other one (odd indices) in a format combination training never sees."""
    n = check.positive_int("n", n)
    split = check.one_of("split", split, ("train", "held_out"))
    seed = check.seed("seed", seed)
    rng = random.Random(f"{split}-{seed}")
    inputs, outputs, spans, formats, unseen = [], [], [], [], []
    for i in range(n):
        if split == "train":
            date, fmt = rng.choice(_TRAIN_DATES), rng.choice(_TRAIN_FORMATS)
        else:
            date = rng.choice(_HELD_OUT_DATES)
            fmt = rng.choice(_HELD_OUT_LIST if i % 2 else _TRAIN_FORMATS)
        text, span = render_date(date, fmt, rng)
        inputs.append(text)
        outputs.append(date.isoformat())
        spans.append(span)
        formats.append(fmt)
        unseen.append(fmt in HELD_OUT_FORMATS)
    return DateSet(tuple(inputs), tuple(outputs), tuple(spans), tuple(formats), tuple(unseen))


def _texts(name: str, texts: object) -> list[str]:
    items = check.sequence_of(name, texts, str, "str", "a str")
    if not items:
        raise ValueError(f"{name} must hold at least one text, got an empty list")
    return items


def encode_inputs(texts: object) -> tuple[torch.Tensor, torch.Tensor]:
    """N input texts -> (tokens (N, L) int64, padded with PAD, valid_lens (N,) int64); L = the longest text."""
    texts = _texts("texts", texts)
    for i, t in enumerate(texts):
        bad = sorted({c for c in t if c not in _INPUT_INDEX or c == "\0"})
        if bad or not t:
            raise ValueError(f"texts[{i}] must be a non-empty text of the characters in INPUT_CHARS, got {t!r}")
    length = max(len(t) for t in texts)
    rows = [[_INPUT_INDEX[c] for c in t] + [PAD] * (length - len(t)) for t in texts]
    return torch.tensor(rows), torch.tensor([len(t) for t in texts])  # (N, L), (N,)


def encode_outputs(texts: object) -> torch.Tensor:
    """N ISO dates "YYYY-MM-DD" -> (N, T) int64 indices into OUTPUT_CHARS."""
    texts = _texts("texts", texts)
    for i, t in enumerate(texts):
        reason = _not_iso(t)
        if reason:
            raise ValueError(f"texts[{i}] must be an ISO date such as '2026-11-25', got {t!r}: {reason}")
    return torch.tensor([[OUTPUT_CHARS.index(c) for c in t] for t in texts])  # (N, T)


def decode_outputs(indices: object) -> list[str]:
    """(N, T) indices into OUTPUT_CHARS -> N texts (what a model wrote: not always a date, see `not_a_date`)."""
    indices = check.has_values("indices", check.integer_tensor("indices", indices))
    if indices.dim() != 2 or (indices.numel() and (indices.min() < 0 or indices.max() >= len(OUTPUT_CHARS))):
        raise ValueError(f"indices must be (N, T) in [0, {len(OUTPUT_CHARS)}), got {check.describe(indices)}")
    return ["".join(OUTPUT_CHARS[i] for i in row) for row in indices.tolist()]


# --- reading a text as the generator writes dates: what the model was trained on, and what it was not -------------


def _cased(words: list[str], dot: bool = False) -> str:
    """A regex alternation of `words` in the generator's three cases (as is, lower, UPPER), longest first; with
    `dot`, an optional "." after each word but "May" (the generator writes "Nov." but never "May.")."""
    forms = sorted({_case(w, c) for w in words for c in ("title", "lower", "upper")}, key=len, reverse=True)
    return "|".join(re.escape(f) + (r"\.?" if dot and f.lower() != "may" else "") for f in forms)


_MONTH_NAME, _MONTH_ABBR = _cased(MONTHS), _cased([m[:3] for m in MONTHS], dot=True)
_WEEKDAY = {"name": _cased(WEEKDAYS), "abbr": _cased([w[:3] for w in WEEKDAYS])}


def _pattern(fmt: DateFormat) -> re.Pattern[str]:
    """The regex of every text `render_date` can write in `fmt` (and of near misses: a day 32, a month 13, a wrong
    ordinal suffix or weekday, which `_read` then explains)."""
    day = {"d": r"(?P<day>[1-9]\d?)", "dd": r"(?P<day>\d\d)", "ord": r"(?P<day>[1-9]\d?)(?P<suffix>st|nd|rd|th)"}
    year = {"yyyy": r"(?P<year>\d{4})", "yy": r"(?P<year>\d\d)"}[fmt.year]
    weekday = "" if fmt.weekday == "none" else rf"(?P<weekday>{_WEEKDAY[fmt.weekday]})(?:, | )"
    if fmt.month in ("m", "mm"):
        month = {"m": r"(?P<month>[1-9]\d?)", "mm": r"(?P<month>\d\d)"}[fmt.month]
        pieces = {"D": day[fmt.day], "M": month, "Y": year}
        body = re.escape(_SEPARATORS[fmt.order]).join(pieces[key] for key in fmt.order)
    else:
        month = rf"(?P<month>{_MONTH_NAME if fmt.month == 'name' else _MONTH_ABBR})"
        body = {
            "DMY": rf"(?P<the>the )?{day[fmt.day]}(?P<of> of | ){month}(?:, | ){year}",
            "MDY": rf"{month} {day[fmt.day]}(?:, | ){year}",
            "YMD": rf"{year}(?:, | ){month} {day[fmt.day]}",
        }[fmt.order]
    return re.compile(rf"(?:on )?{weekday}{body}")


@functools.cache
def _patterns() -> tuple[tuple[DateFormat, re.Pattern[str]], ...]:
    """(format, its regex) for each of FORMATS, compiled at the first `_read`, not at import: compiling the 162 takes
    about 0.1 s, which every notebook importing this module would pay, also those that never read a text."""
    return tuple((fmt, _pattern(fmt)) for fmt in FORMATS)


def _case_of(word: str) -> str:
    """The case of a word: "lower", "upper" or "title" ("Nov"); the regexes of `_pattern` admit no other."""
    word = word.rstrip(".")
    return "lower" if word == word.lower() else "upper" if word == word.upper() else "title"


def _date_of(match: re.Match[str], fmt: DateFormat) -> tuple[datetime.date | None, str]:
    """(the date a matched text names, "") or (None, why the generator would never write it)."""
    parts = match.groupdict()
    day = int(parts["day"])
    if parts.get("suffix") and _ordinal(day) != parts["day"] + parts["suffix"]:
        return None, f"{parts['day'] + parts['suffix']!r} is not an ordinal the data writes ({_ordinal(day)!r} is)"
    if parts.get("the") and not parts.get("suffix"):
        return (
            None,
            f"the data writes 'the' only before an ordinal ('the {_ordinal(day)} of'), not 'the {parts['day']}'",
        )
    if parts.get("the") and parts["of"] != " of " or not parts.get("the") and parts.get("of") == " of ":
        return None, "the data writes 'the 25th of November' or '25th November', not a mix of the two"
    words = [parts[k] for k in ("month", "weekday") if parts.get(k) and not parts[k].isdigit()]
    if len({_case_of(w) for w in words}) > 1:
        return None, f"its words {words} are in different letter cases (the data writes them in one)"
    if parts["month"].isdigit():
        month = int(parts["month"])
        if not 1 <= month <= 12:
            hint = " (in this data '/' writes month/day/year; day.month.year uses '.')" if fmt.order == "MDY" else ""
            return None, f"there is no month {month}{hint}"
    else:
        month = [m[:3].lower() for m in MONTHS].index(parts["month"][:3].lower()) + 1
    year = int(parts["year"])
    if fmt.year == "yy":
        year += 1900 if year >= 69 else 2000  # as the generator writes them: 69-99 are 1969-1999, 00-68 2000-2068
    if not 1 <= year <= 9999:
        return None, f"there is no year {year}"
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None, f"{MONTHS[month - 1]} {year} has no day {day}"
    date = datetime.date(year, month, day)
    if not FIRST_DATE <= date <= LAST_DATE:
        return None, f"{date} is outside the dates the data holds, {FIRST_DATE} .. {LAST_DATE}"
    if parts.get("weekday") and WEEKDAYS[date.weekday()][:3].lower() != parts["weekday"][:3].lower():
        return None, f"{date} is a {WEEKDAYS[date.weekday()]}, not a {parts['weekday']}"
    return date, ""


def _read(text: str) -> tuple[datetime.date | None, str]:
    """(the date, "") if some format of FORMATS writes `text`, else (None, why not)."""
    outside = sorted({c for c in text if c not in _INPUT_INDEX or c == "\0"})
    if outside:
        return None, f"it holds characters the model has no token for: {outside}"
    if text != text.strip(" ") or "  " in text:
        return None, "it has extra spaces (the data never writes a space at either end, nor two in a row)"
    reasons = []
    for fmt, pattern in _patterns():
        match = pattern.fullmatch(text)
        if match is not None:
            date, reason = _date_of(match, fmt)
            if date is not None:
                return date, ""
            reasons.append(reason)
    if reasons:
        return None, reasons[0]
    return None, (
        f"none of the {len(FORMATS)} formats of the training data writes it (they write dates such as "
        "'25 November 2026', 'Wed 11/25/26', 'the 25th of nov, 2026' or '2026-11-25')"
    )


def unreadable(text: object) -> str | None:
    """None if the generator could have written `text` (one of FORMATS, in one of its letter cases, naming a real
    date in FIRST_DATE .. LAST_DATE with its true weekday), else a sentence saying why not: the model never saw
    such an input, so its answer is a guess."""
    return _read(check.text("text", text))[1] or None


def read_date(text: object) -> datetime.date:
    """The date that `text` names, read the way the generator writes dates (the answer the model should give);
    a ValueError saying why for a text that no format of FORMATS writes (see `unreadable`)."""
    date, reason = _read(check.text("text", text))
    if date is None:
        raise ValueError(f"text must be a date as the training data writes them, got {text!r}: {reason}")
    return date


def impossible_dates(seed: int = 0) -> tuple[list[str], list[str]]:
    """Every day its month lacks (the 29th to 31st), in every year of FIRST_DATE .. LAST_DATE: 675 texts, each written
    in one of four of the data's styles chosen at random ("2/30/2020", "30.2.2020", "2020-02-30" or "30 February
    2020"; seeded) -> (texts, what copying each field gives: "2020-02-30", which is not a date)."""
    rng = random.Random(check.seed("seed", seed))
    texts, copies = [], []
    for year in range(FIRST_DATE.year, LAST_DATE.year + 1):
        for month in range(1, 13):
            for day in range(calendar.monthrange(year, month)[1] + 1, 32):
                styles = (f"{month}/{day}/{year}", f"{day}.{month}.{year}", f"{year}-{month:02d}-{day}")
                texts.append(rng.choice((*styles, f"{day} {MONTHS[month - 1]} {year}")))
                copies.append(f"{year}-{month:02d}-{day:02d}")
    return texts, copies


def _not_iso(text: str) -> str:
    """An empty string if `text` is an ISO date of the calendar ("2026-11-25"), else why not."""
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text) is None:  # not \d, which matches any script's digits
        return "not of the form YYYY-MM-DD (four digits, a dash, two digits, a dash, two digits)"
    year, month, day = (int(part) for part in text.split("-"))
    if year == 0:
        return "there is no year 0"
    if not 1 <= month <= 12:
        return f"there is no month {month}"
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return f"{MONTHS[month - 1]} {year} has no day {day}"
    return ""


def not_a_date(output: object) -> str | None:
    """None if `output` (what a model wrote, e.g. from `decode_outputs`) is an ISO date of the calendar, else a
    sentence saying why it is not one ("2020-02-30": February 2020 has no day 30)."""
    return _not_iso(check.text("output", output)) or None


class DateTranslator(nn.Module):
    """Bidirectional GRU encoder, GRUCell decoder attending to the encoder states (Bahdanau et al., 2015).

    attention="additive": AdditiveAttention, queries = the decoder's state before each step (Bahdanau's setting);
    "dot": DotProductAttention on the same queries and keys (no parameters of its own);
    "none": no attention, the decoder reads the encoder's final states at every step (Cho et al., 2014).
    """

    def __init__(self, attention: str = "additive", embed_size: int = 16, num_hiddens: int = 32, seed: int = 0):
        super().__init__()
        self.attention_kind = check.one_of("attention", attention, ATTENTIONS)
        E, H = check.positive_int("embed_size", embed_size), check.positive_int("num_hiddens", num_hiddens)
        D = 2 * H
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(check.seed("seed", seed))
            self.embed = nn.Embedding(len(INPUT_CHARS), E, padding_idx=PAD)
            self.encoder = nn.GRU(E, H, batch_first=True, bidirectional=True)
            self.init_state = nn.Linear(D, D)
            self.out_embed = nn.Embedding(len(OUTPUT_CHARS) + 1, E)  # + BOS
            self.decoder = nn.GRUCell(E + D, D)
            self.output = nn.Linear(2 * D, len(OUTPUT_CHARS))
            if attention == "additive":
                self.attention = AdditiveAttention(D, D, H, 0.0)
            elif attention == "dot":
                self.attention = DotProductAttention()
            else:
                self.attention = None

    def _check(self, src: object, valid_lens: object) -> tuple[torch.Tensor, torch.Tensor]:
        """src (B, L) tokens in 0 .. len(INPUT_CHARS) - 1 and valid_lens (B,) in 1 .. L, B >= 1, on the model's
        device -> both as int64 (int8, uint8 ... are widened: nn.Embedding and the GRU's packing need int64)."""
        src = check.has_values("src", check.integer_tensor("src", src))
        valid_lens = check.has_values("valid_lens", check.integer_tensor("valid_lens", valid_lens))
        if src.dim() != 2 or valid_lens.shape != src.shape[:1]:
            raise ValueError(
                f"src must be (B, L) and valid_lens (B,), got {tuple(src.shape)} and {tuple(valid_lens.shape)}"
            )
        if src.shape[0] == 0 or src.shape[1] == 0:
            raise ValueError(f"src must hold at least one text of at least one character, got shape {tuple(src.shape)}")
        check.same_device([("src", src), ("valid_lens", valid_lens)])
        if src.device != self.embed.weight.device:
            raise ValueError(
                f"src is on {src.device} but the model's parameters are on {self.embed.weight.device}; move one to "
                "the other with .to(device)"
            )
        if int(src.min()) < 0 or int(src.max()) >= len(INPUT_CHARS):
            raise ValueError(
                f"src must hold tokens in 0 .. {len(INPUT_CHARS) - 1} (indices into INPUT_CHARS, from "
                f"encode_inputs), got values {int(src.min())} .. {int(src.max())}"
            )
        if int(valid_lens.min()) < 1 or int(valid_lens.max()) > src.shape[1]:
            raise ValueError(f"valid_lens must be in [1, {src.shape[1]}], got {valid_lens.tolist()}")
        inside = torch.arange(src.shape[1], device=src.device) < valid_lens[:, None]  # (B, L), True = a character
        if bool((src[inside] == PAD).any()):
            raise ValueError(
                f"src holds the padding token PAD = {PAD} inside a valid length: PAD only fills the end of a shorter "
                "text (encode_inputs makes src and valid_lens)"
            )
        return src.long(), valid_lens.long()

    def _targets(self, targets: object, batch: int) -> torch.Tensor:
        """targets (B, T) in 0 .. len(OUTPUT_CHARS) - 1 (not BOS, which only starts the decoder), T >= 1 -> int64."""
        targets = check.has_values("targets", check.integer_tensor("targets", targets, dims=2, shape="(B, T)"))
        if targets.shape[0] != batch or targets.shape[1] == 0:
            raise ValueError(
                f"targets must be (B, T) = ({batch}, T >= 1), one row of output indices per text of src, got shape "
                f"{tuple(targets.shape)}"
            )
        if targets.device != self.embed.weight.device:
            raise ValueError(
                f"targets are on {targets.device} but the model's parameters on {self.embed.weight.device}"
            )
        if int(targets.min()) < 0 or int(targets.max()) >= len(OUTPUT_CHARS):
            raise ValueError(
                f"targets must hold indices into OUTPUT_CHARS, 0 .. {len(OUTPUT_CHARS) - 1} (BOS = {BOS} only starts "
                f"the decoder; encode_outputs makes them), got values {int(targets.min())} .. {int(targets.max())}"
            )
        return targets.long()

    def encode(self, src: torch.Tensor, valid_lens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, L) tokens, (B,) lengths -> encoder states (B, L, D) (zero past each length), first state (B, D)."""
        src, valid_lens = self._check(src, valid_lens)
        return self._encode(src, valid_lens)

    def _encode(self, src: torch.Tensor, valid_lens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        lengths = valid_lens.cpu()  # pack_padded_sequence takes the lengths on the CPU
        packed = nn.utils.rnn.pack_padded_sequence(self.embed(src), lengths, batch_first=True, enforce_sorted=False)
        states, last = self.encoder(packed)  # last: (2, B, H), forward's final and backward's final (at position 0)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=src.shape[1])  # (B, L, D)
        summary = torch.cat([last[0], last[1]], dim=-1)  # (B, D)
        return states, torch.tanh(self.init_state(summary))

    def _step(
        self,
        prev: torch.Tensor,
        state: torch.Tensor,
        states: torch.Tensor,
        valid_lens: torch.Tensor,
        summary: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """One decoder step: (B,) previous output, (B, D) state -> logits (B, V), new state (B, D), weights (B, L)."""
        if self.attention is None:
            context, weights = summary, None  # (B, D)
        else:
            context = self.attention(state.unsqueeze(1), states, states, valid_lens).squeeze(1)  # (B, 1, D) -> (B, D)
            weights = self.attention.attention_weights.squeeze(1)  # (B, 1, L) -> (B, L)
        state = self.decoder(torch.cat([self.out_embed(prev), context], dim=-1), state)  # (B, E + D) -> (B, D)
        return self.output(torch.cat([state, context], dim=-1)), state, weights  # (B, 2D) -> (B, V)

    def forward(self, src: torch.Tensor, valid_lens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Teacher forcing: (B, L) tokens, (B,) lengths, (B, T) target indices -> logits (B, T, V)."""
        src, valid_lens = self._check(src, valid_lens)
        targets = self._targets(targets, src.shape[0])
        states, state = self._encode(src, valid_lens)
        summary = state  # without attention, the decoder reads its first state at every step
        prev = torch.full_like(targets[:, 0], BOS)  # (B,)
        logits = []
        for t in range(targets.shape[1]):
            step_logits, state, _ = self._step(prev, state, states, valid_lens, summary)
            logits.append(step_logits)
            prev = targets[:, t]
        return torch.stack(logits, dim=1)  # T x (B, V) -> (B, T, V)

    @torch.no_grad()
    def translate(self, src: object, valid_lens: object) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Greedy decoding: (B, L) tokens, (B,) lengths -> output indices (B, T), attention weights (B, T, L) or None.

        Runs on one thread: the model is tiny, and threads waiting for each other cost more than they save."""
        src, valid_lens = self._check(src, valid_lens)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            states, state = self._encode(src, valid_lens)
            summary = state
            prev = torch.full((src.shape[0],), BOS, device=src.device)  # (B,)
            outputs, weights = [], []
            for _ in range(OUTPUT_LENGTH):
                step_logits, state, w = self._step(prev, state, states, valid_lens, summary)
                prev = step_logits.argmax(-1)  # (B,)
                outputs.append(prev)
                weights.append(w)
        finally:
            torch.set_num_threads(threads)
        alignment = None if self.attention is None else torch.stack(weights, dim=1)  # T x (B, L) -> (B, T, L)
        return torch.stack(outputs, dim=1), alignment  # (B, T)


if __name__ == "__main__":
    from .dates_train import _main

    _main()
