"""The `display` section: how people see a game, kept apart from its rules (as Ludii keeps its
graphics metadata apart). A ruleset runs the same without it; everything has a default.

- `label NAME "text"`: what a counter, zone, marker, track, piece or grid is called on screen;
- `internal NAME, NAME`: helpers of the rules that people need not see (still in views and traces);
- `card KIND "template"`: how a card of a kind is summed up, e.g. `"{name}: cost {cost}[, {gold} gold]"`;
- `cell GRID "template"`: how a cell of a grid is named, from `{col}`, `{row}` (from 1) and
  `{dx}`, `{dy}` (signed, from the grid's middle cell);
- `score for p "label" = EXPR`: a running score shown for every player; it may read only what every
  player sees (the checker refuses a hidden counter, a zone or grid whose cards some player does
  not see, `zone_of` and `call`), so that it can be worked out from any player's view.

A template is text with `{field}` holes; a part in `[...]` is left out when every hole in it is
empty (0, false, none, an empty list or text); a part with no hole is always kept. `{{`, `}}`, `[[` and `]]` stand for the character.
Templates are parsed here, once, into plain tuples; filling them is the board's (interpreter/board).
"""
from __future__ import annotations

import attrs

CELL_FIELDS = ("col", "row", "dx", "dy")
MAX_TEMPLATE = 400  # characters of a template


@attrs.frozen
class Display:
    """A ruleset's display section, every block merged (the last entry for a name wins)."""

    labels: dict = attrs.Factory(dict)     # declared name -> label
    internal: frozenset = frozenset()      # declared names people need not see
    cards: dict = attrs.Factory(dict)      # kind -> template (parts, see parse_template)
    cells: dict = attrs.Factory(dict)      # grid -> template
    scores: tuple = ()                     # the `score for p "label" = ...` lines (ast.DisplayScore)

    def label(self, name: str) -> str:
        """What `name` is called on screen: its label, else the name with `_` read as spaces."""
        return self.labels.get(name) or name.replace("_", " ")


def parse_template(text: str) -> tuple[tuple, list[tuple[int, str]]]:
    """(parts, problems): parts are ("text", s), ("hole", name) and ("opt", parts); a problem is
    (offset in `text`, message)."""
    problems: list[tuple[int, str]] = []
    if len(text) > MAX_TEMPLATE:
        return (), [(0, f"a template is at most {MAX_TEMPLATE} characters long")]
    stack: list[list] = [[]]
    opened: list[int] = []
    i, buf = 0, []

    def flush():
        if buf:
            stack[-1].append(("text", "".join(buf)))
            buf.clear()
    while i < len(text):
        ch, nxt = text[i], text[i + 1:i + 2]
        if ch in "{}[]" and nxt == ch:
            buf.append(ch)
            i += 2
            continue
        if ch == "{":
            end = text.find("}", i)
            name = text[i + 1:end] if end >= 0 else ""
            if end < 0 or not name.isidentifier():
                problems.append((i, "a `{` opens a field's name, as in `{cost}`; `{{` writes the character"))
                return (), problems
            flush()
            stack[-1].append(("hole", name))
            i = end + 1
            continue
        if ch == "}":
            problems.append((i, "a `}` closes nothing; `}}` writes the character"))
            return (), problems
        if ch == "[":
            flush()
            stack.append([])
            opened.append(i)
        elif ch == "]":
            if len(stack) == 1:
                problems.append((i, "a `]` closes no `[`; `]]` writes the character"))
                return (), problems
            flush()
            inner = stack.pop()
            opened.pop()
            stack[-1].append(("opt", tuple(inner)))
        else:
            buf.append(ch)
        i += 1
    if opened:
        problems.append((opened[-1], "this `[` is never closed"))
        return (), problems
    flush()
    return tuple(stack[0]), problems


def holes(parts: tuple):
    """The names of the holes of a parsed template, in order."""
    for part in parts:
        if part[0] == "hole":
            yield part[1]
        elif part[0] == "opt":
            yield from holes(part[1])


def fill(parts: tuple, value) -> str:
    """The template's text, `value(name)` giving each hole's text or None when it is empty."""
    out = []
    for part in parts:
        if part[0] == "text":
            out.append(part[1])
        elif part[0] == "hole":
            shown = value(part[1])
            out.append("" if shown is None else shown)
        elif (inside := list(holes(part[1]))) and all(value(h) is None for h in inside):
            continue
        else:
            out.append(fill(part[1], value))
    return "".join(out)
