"""Positioned diagnostics shared by every step of the language pipeline."""
from __future__ import annotations

import difflib

import attrs


@attrs.frozen(order=True)
class Diagnostic:
    """One error: where it is, what is wrong, and a hint when one is obvious."""

    path: str
    line: int
    col: int
    message: str
    hint: str | None = None
    source_line: str | None = attrs.field(default=None, eq=False, order=False)

    def render(self) -> str:
        """`file:line:col: message`, then the source line, a caret and the hint."""
        where = f"{self.path}:{self.line}:{self.col}" if self.line else self.path
        out = [f"{where}: {self.message}"]
        if self.source_line is not None:
            text, caret = _window(self.source_line.rstrip("\n"), max(self.col - 1, 0))
            out.append("    " + text)
            out.append("    " + " " * caret + "^")
        if self.hint:
            out.append(f"    hint: {self.hint}")
        return "\n".join(out)


SHOWN = 240  # the longest source line shown whole; a longer one is cut around the column


def _window(line: str, at: int) -> tuple[str, int]:
    """A long source line cut to the part around column `at`, and the caret's place in it."""
    if len(line) <= SHOWN:
        return line, at
    start = max(0, min(at - SHOWN // 2, len(line) - SHOWN))
    text = line[start:start + SHOWN]
    caret = at - start
    if start > 0:
        text, caret = "..." + text, caret + 3
    if start + SHOWN < len(line):
        text += "..."
    return text, caret


class LanguageError(Exception):
    """Raised by a step that found errors; carries every diagnostic it collected."""

    step = "language"

    def __init__(self, diagnostics):
        self.diagnostics = sorted(set(diagnostics))
        super().__init__("\n".join(d.render() for d in self.diagnostics))

    def render(self) -> str:
        """All diagnostics, one block each."""
        return "\n".join(d.render() for d in self.diagnostics)


class ParseError(LanguageError):
    """The text does not follow the grammar."""

    step = "parse"


class CheckError(LanguageError):
    """The rules parse but are inconsistent (names, types, reachability)."""

    step = "check"


class CardError(LanguageError):
    """The card database does not match the ruleset's card kinds."""

    step = "cards"


def count_of(n: int, noun: str) -> str:
    """`1 player`, `2 players`: a count with its noun in the right number."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def player_range(lo: int, hi: int) -> str:
    """`2 players`, `1 player`, or `2-4 players` for a range."""
    return count_of(lo, "player") if lo == hi else f"{lo}-{hi} players"


def suggest(name: str, candidates) -> str | None:
    """A 'did you mean' hint for a misspelt name."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.75)
    return f"did you mean `{close[0]}`?" if close else None


def make(path: str, source: str | None, line: int, col: int, message: str, hint=None):
    """A diagnostic with its source line filled in."""
    src_line = None
    if source is not None:
        lines = source.splitlines()
        if 1 <= line <= len(lines):
            src_line = lines[line - 1]
    return Diagnostic(path, line, col, message, hint, src_line)
