"""Positioned diagnostics shared by every step of the language pipeline."""
from __future__ import annotations

import difflib

import re

import attrs


SEVERITIES = ("error", "warning")


@attrs.frozen(order=True)
class Diagnostic:
    """One problem: where it starts and ends, what is wrong, a hint when one is obvious, and
    whether it is an error (the step fails) or a warning.

    Lines and columns are 1-based; the end is the column just after the last character, as in
    `ast.Span`; 0 means unknown (then only the start is marked). Two diagnostics that differ only
    in their end are the same problem: the end takes no part in equality and ordering.
    """

    path: str
    line: int
    col: int
    message: str
    hint: str | None = None
    source_line: str | None = attrs.field(default=None, eq=False, order=False)
    end_line: int = attrs.field(default=0, eq=False, order=False)
    end_col: int = attrs.field(default=0, eq=False, order=False)
    severity: str = attrs.field(default="error", validator=attrs.validators.in_(SEVERITIES))

    def render(self) -> str:
        """`file:line:col: message` (`warning: message` for a warning), then the source line with
        the span underlined (a single caret when it goes on to another line), and the hint."""
        where = f"{self.path}:{self.line}:{self.col}" if self.line else self.path
        label = "warning: " if self.severity == "warning" else ""
        out = [visible(f"{where}: {label}{self.message}")]
        if self.source_line is not None:
            line = self.source_line.rstrip("\n")
            start = max(self.col - 1, 0)
            text, caret, room = _window(line, start)
            width = max(1, min(self.width(len(line)), room))
            # an escaped control character takes several columns: the caret moves with it
            shown_caret = len(visible(text[:caret]))
            shown_width = max(1, len(visible(text[caret:caret + width])))
            out.append("    " + visible(text))
            out.append("    " + " " * shown_caret + "^" * shown_width)
        if self.hint:
            out.append(visible(f"    hint: {self.hint}"))
        return "\n".join(out)

    def width(self, line_length: int) -> int:
        """How many columns to underline: the span if it ends on its own line, else 1."""
        if self.end_line != self.line or self.end_col <= self.col:
            return 1
        return max(1, min(self.end_col, line_length + 1) - self.col)


SHOWN = 240  # the longest source line shown whole; a longer one is cut around the column

# C0 and C1 controls but the line break and the tab, and the bidirectional overrides and isolates,
# which reorder what follows them on the screen: a file's text that reaches a terminal shows them as
# escapes (`\\x1b`), so that no terminal sequence hidden in a name or a line is ever played.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text) -> str:
    """`text` with its control characters written as escapes, the rest as it is."""
    return _CONTROL.sub(_escape, str(text))


def _window(line: str, pos: int) -> tuple[str, int, int]:
    """A long source line cut to the part around offset `pos`, the caret's place in it, and how
    many characters of the line it shows from `pos` on (the most an underline may cover)."""
    if len(line) <= SHOWN:
        return line, pos, len(line) - pos
    start = max(0, min(pos - SHOWN // 2, len(line) - SHOWN))
    text = line[start:start + SHOWN]
    caret = pos - start
    room = start + len(text) - pos
    if start > 0:
        text, caret = "..." + text, caret + 3
    if start + SHOWN < len(line):
        text += "..."
    return text, caret, room


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


def suggest(name: str, candidates, cutoff: float = 0.75) -> str | None:
    """A 'did you mean' hint for a misspelt name."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=cutoff)
    return f"did you mean `{close[0]}`?" if close else None


def make(path: str, source: str | None, line: int, col: int, message: str, hint=None, *,
         end_line: int = 0, end_col: int = 0, severity: str = "error"):
    """A diagnostic with its source line filled in."""
    src_line = None
    if source is not None:
        lines = source.splitlines()
        if 1 <= line <= len(lines):
            src_line = lines[line - 1]
    return Diagnostic(path, line, col, message, hint, src_line, end_line, end_col, severity)


def at(path: str, source: str | None, span, message: str, hint=None, *, severity: str = "error"):
    """A diagnostic covering a node's span (an `ast.Span`: start, end), its source line filled in."""
    return make(path, source, span.line, span.col, message, hint,
                end_line=span.end_line, end_col=span.end_col, severity=severity)
