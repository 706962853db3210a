"""The board model: a player's view and the display section, made into areas, items and a question.

Everything here is plain, immutable data of text and numbers: a screen renders it without asking
the engine anything more. The text is the ruleset's, unescaped: a renderer writes it as text.
"""
from __future__ import annotations

import random
import re

import attrs

from rulesdsl.display import Display, fill

from ..core.place import place
from ..engine import GameError

SHOWN_CARDS = 400  # cards of one zone the board lists (the rest are counted)
_CELL = re.compile(r"^\((-?[0-9]+),(-?[0-9]+)\)$")


@attrs.frozen
class Cards:
    """Cards of one name side by side in a zone: `count` of them, `summary` from the display."""

    name: str
    count: int
    summary: str
    attached: tuple = ()  # (slot label, names) of the cards in its slots, when it has some


@attrs.frozen
class Pile:
    """A zone: its cards grouped by name in the order they lie, and those not seen (`hidden`);
    `size_known` false when the player may not even count them."""

    key: str
    label: str
    owner: int | None
    groups: tuple
    hidden: int
    size_known: bool = True

    @property
    def size(self) -> int:
        return sum(g.count for g in self.groups) + self.hidden


@attrs.frozen
class Counter:
    key: str
    label: str
    owner: int | None
    value: str


@attrs.frozen
class Cell:
    col: int      # from 1
    row: int      # from 1
    name: str     # the cell's name by the display (`(3,4)` by default)
    card: str | None   # the card there, None when it is unseen
    summary: str = ""


@attrs.frozen
class Grid:
    key: str
    label: str
    owner: int | None
    width: int
    height: int
    cells: tuple  # of Cell, the occupied ones
    offered: tuple = ()  # (option number, Cell) of the cells the pending question offers


@attrs.frozen
class Track:
    key: str
    label: str
    spaces: int | None  # numbered from 0
    pieces: tuple  # (who or what, space) of the pieces on it; a piece off it has space None


@attrs.frozen
class Marker:
    key: str
    label: str
    holder: str  # `P2`, or "nobody"


@attrs.frozen
class Area:
    title: str
    owner: int | None
    items: tuple


@attrs.frozen
class Choice:
    number: int   # from 1, as the person types it
    text: str
    detail: str = ""  # the card's summary, when the option is a card


@attrs.frozen
class Question:
    player: str
    prompt: str
    choices: tuple  # of Choice; empty when the options are not this player's to see


@attrs.frozen
class Board:
    seat: int
    title: str
    areas: tuple
    question: Question | None
    result: str = ""
    cards: tuple = ()  # (name, summary) of every card named on the board, for an inspector
    scores: tuple = ()  # (label, (each player's value as text)) of the display's score lines

    def area(self, owner: int | None) -> Area:
        return next(a for a in self.areas if a.owner == owner)


def summary_of(engine, display: Display, name: str) -> str:
    """How the card `name` is summed up: its kind's template, else its fields that are not empty."""
    d = _defs(engine).get(name)
    if d is None:
        return name
    parts = display.cards.get(d.kind)
    if parts is not None:
        return fill(parts, lambda f: name if f == "name" else _shown(d.fields.get(f)))
    shown = [f"{f.replace('_', ' ')} {_shown(v)}" for f, v in d.fields.items()
             if f != "copies" and _shown(v) is not None]
    return f"{name}: " + ", ".join(shown) if shown else name


def _shown(value) -> str | None:
    """A field's value as text, or None when it is empty (0, false, none, empty)."""
    if value is None or value is False or value == 0 or value == "" or value == [] or value == ():
        return None
    if value is True:
        return "yes"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


def _defs(engine) -> dict:
    """Card name -> its definition (the first of that name)."""
    out: dict = {}
    for d in engine.cards.defs:
        out.setdefault(d.name, d)
    return out


def value_text(value) -> str:
    """A counter's value as people read it: `?` when unseen, a keyed counter as `a 1, b 2`."""
    if value is None:
        return "?"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k.replace('_', ' ')} {value_text(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return ", ".join(value_text(v) for v in value)
    return str(value)


def cell_name(display: Display, grid, col: int, row: int) -> str:
    """A cell's name: the grid's `cell` template, else `(col,row)`."""
    parts = display.cells.get(grid.name)
    if parts is None:
        return f"({col},{row})"
    mid_c, mid_r = (grid.width + 1) // 2, (grid.height + 1) // 2
    holes = {"col": col, "row": row, "dx": col - mid_c, "dy": row - mid_r}

    def value(h):
        v = holes[h]
        return f"{v:+d}" if h in ("dx", "dy") and v else str(v)
    return fill(parts, value)


class Referee:
    """The whole game as a view-like record, for a board of everything (a trace's step seen by
    the referee): `data` from `Engine.snapshot` and the state's round and phase; no seat."""

    player = None

    def __init__(self, snapshot: dict, round_: int, phase: str | None, hand: int = 0):
        self.data = {**snapshot, "round": round_, "phase": phase, "hand": hand, "pending": None, "result": None}


def build(engine, view, options=None) -> Board:
    """The board of `view` (one player's), its question's options named from `options` (the
    engine's Option list, when the decision is this player's to take)."""
    display: Display = engine.model.display
    data = view.data
    seat = view.player
    players = _players(data)
    shared: list = []
    own: list[list] = [[] for _ in range(players)]
    names: dict[str, str] = {}

    def summary(name):
        if name not in names:
            names[name] = summary_of(engine, display, name)
        return names[name]

    def put(owner, item):
        (shared if owner is None else own[owner]).append(item)

    for key, value in data["counters"].items():
        if key in display.internal:
            continue
        label = display.label(key)
        if isinstance(value, list) and len(value) == players:
            for p, v in enumerate(value):
                put(p, Counter(key, label, p, value_text(v)))
        else:
            put(None, Counter(key, label, None, value_text(value)))
    handles = {} if seat is None else {p.key: range(p.first, p.first + len(p.cards))
                                       for p in engine.places(view) if p.kind != "grid"}
    attached: dict[int, list] = {}
    for key, cards in data["zones"].items():
        where = place(key)
        if where.host is not None and cards:
            attached.setdefault(where.host, []).append((display.label(where.name), tuple(c or "?" for c in cards)))
    for key, cards in data["zones"].items():
        where = place(key)
        if where.host is not None or where.name in display.internal:
            continue
        label = display.label(where.name) + (f" [{where.part}]" if where.part else "")
        if cards is None:
            put(where.owner, Pile(key, label, where.owner, (), 0, size_known=False))
            continue
        groups: list[Cards] = []
        hidden = 0
        for handle, name in zip(handles.get(key, range(len(cards))), cards[:SHOWN_CARDS]):
            if name is None:
                hidden += 1
                continue
            slots = tuple(attached.get(handle, ()))
            if groups and groups[-1].name == name and not slots and not groups[-1].attached:
                groups[-1] = attrs.evolve(groups[-1], count=groups[-1].count + 1)
            else:
                groups.append(Cards(name, 1, summary(name), slots))
        hidden += max(0, len(cards) - SHOWN_CARDS)
        put(where.owner, Pile(key, label, where.owner, _merged(groups), hidden))
    offered = _offered_cells(options)
    for key, cells in data["grids"].items():
        where = place(key)
        if where.name in display.internal:
            continue
        g = engine.model.grids[where.name]
        out = []
        for text, name in cells.items():
            m = _CELL.match(text)
            if m is None:
                continue
            col, row = int(m.group(1)), int(m.group(2))
            out.append(Cell(col, row, cell_name(display, g, col, row), name, summary(name) if name else ""))
        marks = tuple((n, Cell(c % g.width + 1, c // g.width + 1, cell_name(display, g, c % g.width + 1, c // g.width + 1), None))
                      for n, (grid_name, c) in offered if grid_name == where.name and where.owner in (None, seat))
        put(where.owner, Grid(key, display.label(where.name), where.owner, g.width, g.height,
                              tuple(sorted(out, key=lambda c: (c.row, c.col))), marks))
    for key, pieces in data.get("tracks", {}).items():
        if key in display.internal:
            continue
        t = engine.model.tracks.get(key)
        spaces = t.size if t is not None and isinstance(getattr(t, "size", None), int) else None
        put(None, Track(key, display.label(key), spaces,
                        tuple((display.label(who), pos) for who, pos in pieces.items())))
    for key, holder in data.get("markers", {}).items():
        if key in display.internal:
            continue
        put(None, Marker(key, display.label(key), "nobody" if holder is None
                         else holder if isinstance(holder, str) else f"P{holder + 1}"))
    areas = [Area("Shared", None, tuple(shared))]
    seats = engine.model.game.seats or ()
    for p in range(players):
        who = f"P{p + 1}" + (f" ({seats[p]})" if p < len(seats) else "") + (" - you" if p == seat else "")
        areas.append(Area(who, p, tuple(own[p])))
    hand = f"Hand {data['hand']}, round" if data.get("hand") else "Round"
    you = "Everything (the referee)." if seat is None else f"You are P{seat + 1}."
    title = f"{you}  {hand} {data['round']}, phase {data['phase']}"
    result = ""
    if data.get("result"):
        r = data["result"]
        result = f"Game over: {', '.join(r.get('winners', [])) or 'nobody'} won" + (f" ({r['reason']})" if r.get("reason") else "")
    return Board(seat, title, tuple(areas), _question(engine, display, data, options, dict(offered), summary),
                 result, tuple(sorted(names.items())), _scores(engine, view, players))


def _scores(engine, view, players: int) -> tuple:
    """The display's score lines for every player. The checker lets them read only what every
    player sees, so any game the view cannot tell from the real one gives their true values: they
    are worked out on one such game, dealt from the view (a fixed seed), never on the state."""
    lines = engine.display_scores
    if not lines or view.player is None:
        return ()
    evaluate = engine.evaluator(engine.determinize(view, random.Random(0)))
    out = []
    for label, var, fn in lines:
        values = []
        for p in range(players):
            try:
                values.append(value_text(evaluate(fn, {var: p})))
            except GameError:
                values.append("?")  # a rule it reads fails here (a division by 0, say)
        out.append((label, tuple(values)))
    return tuple(out)


def _players(data) -> int:
    """The number of seats, from the view: the longest per-player counter, else the `P<n>.` keys."""
    keys = [k for k in list(data["zones"]) + list(data["grids"]) if k[:1] == "P" and "." in k]
    n = max((place(k).owner + 1 for k in keys if place(k).owner is not None), default=0)
    for v in data["counters"].values():
        if isinstance(v, list):
            n = max(n, len(v))
    for pieces in data.get("tracks", {}).values():
        n = max([n] + [int(w[1:]) for w in pieces if re.fullmatch(r"P[0-9]+", w)])
    return max(n, 1)


def _merged(groups: list) -> tuple:
    """Groups of a zone whose order people do not follow: one per name. A zone keeps its order when
    it has attached cards; otherwise runs of the same name far apart are added together."""
    if any(g.attached for g in groups):
        return tuple(groups)
    out: dict[str, Cards] = {}
    for g in groups:
        out[g.name] = attrs.evolve(out[g.name], count=out[g.name].count + g.count) if g.name in out else g
    return tuple(out.values())


def _offered_cells(options) -> list:
    """(option number, (grid name, cell)) of the options that are cells of a grid."""
    out = []
    for n, o in enumerate(options or (), 1):
        head, _, rest = o.id.partition(":")
        if head == "cell":
            grid, _, cell = rest.rpartition(":")
            if cell.isdigit():
                out.append((n, (grid, int(cell))))
    return out


def option_name(engine, display: Display, option, cell=None) -> str:
    """An option as people read it: a grid's cell by the display's name for it, else its label.
    `cell` is the option's (grid, cell) when known (`_offered_cells`)."""
    if cell is None:
        found = _offered_cells([option])
        cell = found[0][1] if found else None
    g = engine.model.grids.get(cell[0]) if cell is not None else None
    if g is None:
        return option.label
    return cell_name(display, g, cell[1] % g.width + 1, cell[1] // g.width + 1)


def _question(engine, display, data, options, cells: dict, summary) -> Question | None:
    pending = data.get("pending")
    if not pending:
        return None
    player = f"P{pending['player'] + 1}" if isinstance(pending.get("player"), int) else str(pending.get("player"))
    prompt = pending.get("prompt") or "choose"
    choices = []
    if options is not None:
        for n, o in enumerate(options, 1):
            text, detail = option_name(engine, display, o, cells.get(n)), ""
            head, _, rest = o.id.partition(":")
            if n not in cells and head in ("card", "def") and not rest.startswith("?"):
                detail = summary(o.label.split(" #")[0])
            choices.append(Choice(n, text, detail))
    else:
        choices = [Choice(n, str(text)) for n, text in enumerate(pending.get("options") or (), 1)]
    return Question(player, prompt, tuple(choices))
