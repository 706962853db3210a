"""Values read from text (a command line's `--set`, an option's number): whole numbers read
against their bounds with their digits counted before any is converted, so a text of any length
costs no more than the bounds' own digits, and a value named in a message as typed when short, by
its length when long. Below both the compiler (a parameter's value) and the tools (an option's)."""
from __future__ import annotations

import re

from .limits import MAX_INT, MIN_INT

WHOLE = re.compile(r"-?[0-9]+")
SHOWN = 24  # a longer value is named by its length in a message (the source line shows it)


def shown(text: str, what: str = "value") -> str:
    """A value (or a name: `what`) for a message: as typed when short, else by its length."""
    if len(text) <= SHOWN:
        return f"`{text}`" if not WHOLE.fullmatch(text) else text
    return f"a {what} of {len(text):,} characters"


class BoundError(Exception):
    """A text that is not a whole number within the bounds asked; says why, in the user's words."""


def whole(text: str, lo: int, hi: int) -> int:
    """The whole number `text` (ASCII digits with an optional minus) when it lies in lo..hi; the
    digits are counted before any is converted, so a text of any length costs no more than the
    bounds' own digits."""
    if not WHOLE.fullmatch(text):
        raise BoundError(f"takes a whole number, not {shown(text)}")
    digits = text.lstrip("-").lstrip("0") or "0"
    if len(digits) <= max(len(str(abs(lo))), len(str(abs(hi)))):
        value = -int(digits) if text.startswith("-") else int(digits)
    else:  # past both bounds in size: only its side matters
        value = lo - 1 if text.startswith("-") else hi + 1
    if value < lo:
        raise BoundError(f"must be at least {lo:,}, not {shown(text)}")
    if value > hi:
        raise BoundError(f"must be at most {hi:,}, not {shown(text)}")
    return value


def in_int_range(text: str) -> int | None:
    """A whole number the engine can hold (-2^63 .. 2^63-1), or None: for values read as text
    (`--set`, `--sweep`), counted before converted."""
    try:
        return whole(text, MIN_INT, MAX_INT)
    except BoundError:
        return None
