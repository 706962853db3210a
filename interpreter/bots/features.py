"""A player's position as a vector of numbers, for a learned evaluation (learned.py): what the
player sees (`Engine.sight`), laid out from the ruleset's declarations and its card data.

The layout depends only on the compiled ruleset and the player count, so every position of a game
has the same length and every entry the same meaning; seats are told relative to the player the
position is for (block 0 of a player's place is their own, block 1 the next seat's...). An entry
is a count or a sum a designer would read off the table:

- the round, and the player's own seat (one entry per seat: the order of play may favour one);
- for every place name (zones, grids, slots of cards; a player's place once per relative seat, a
  card's slot by the seat of the place its card lies in, or as shared): how many cards lie there,
  how many of them the player does not see, and over the cards seen: the sum of every number field
  and the count of every true yes/no field of the place's kind, and for every text field with at
  most MAX_VALUES values, how many cards have each value;
- for every grid of at most MAX_CELL_ENTRIES cells (a player's once per relative seat): one entry
  per cell, 1 when it is filled (a shape a designer sees: a line about to be completed);
- every counter that is neither keyed nor a card's (a player's once per relative seat);
- every marker: whether each relative seat holds it;
- every track: each player's piece's space (relative seats), each named piece's space; -1 off
  the track.

A card the player does not see counts in its place's size only, never as the card it is.
"""
from __future__ import annotations

import numpy as np

MAX_VALUES = 12  # a text field with more distinct values is a name, not a category: left out
MAX_CELL_ENTRIES = 100  # a grid of more cells is told by its counts only
LIMIT = 1e6
MAX_ENTRIES = 20_000  # the largest shipped layout has 2,568 entries; the fit's memory grows with the square


class LayoutTooLarge(Exception):
    """A ruleset that lays out more entries than a learned evaluation takes."""


class FeatureLayout:
    """The entries of one ruleset's positions at one player count: `labels` (one per entry) and
    `encode(sight)`."""

    def __init__(self, engine, players: int):
        self.players = players
        self.engine = engine
        model = engine.model
        kinds = engine.card_kinds
        fields = engine.card_fields
        self.labels: list[str] = []
        # Per kind: [(field, how, value)] where how is "sum", "true" or "is" (a text value).
        self.columns: dict[str, list] = {}
        for kind in sorted(set(kinds)):
            defs = [i for i, k in enumerate(kinds) if k == kind]
            names = sorted({n for d in defs for n in fields[d]})
            cols = []
            for name in names:
                values = [fields[d].get(name) for d in defs]
                if all(type(v) is bool or v is None for v in values):
                    if any(values):
                        cols.append((name, "true", None))
                elif all(type(v) is int or v is None for v in values):
                    if len({v for v in values if v is not None}) > 1 or any(values):
                        cols.append((name, "sum", None))
                elif all(type(v) is str or v is None for v in values):
                    distinct = sorted({v for v in values if v is not None})
                    if 1 < len(distinct) <= MAX_VALUES:
                        cols.extend((name, "is", v) for v in distinct)
            self.columns[kind] = cols
        # Per def: the vector its card adds to its place's block (after size and unseen).
        self._def_rows: list[np.ndarray] = []
        for d, kind in enumerate(kinds):
            row = []
            for name, how, value in self.columns[kind]:
                v = fields[d].get(name)
                row.append(float(bool(v)) if how == "true" else float(v or 0) if how == "sum" else float(v == value))
            self._def_rows.append(np.array(row, dtype=np.float64))

        self._round = self._add("round")
        self._seat = self._add_many([f"own seat P{s + 1}" for s in range(players)])
        self._places: dict = {}
        place_kinds = [(name, z.kind, z.per_player) for name, z in model.zones.items() if not z.by]
        place_kinds += [(key, z.kind, False) for z in model.zones.values() if z.by
                        for key in engine.zone_keys[z.name]]
        place_kinds += [(name, g.kind, g.per_player) for name, g in model.grids.items()]
        for (name, kind, per_player) in sorted(place_kinds):
            for r in (range(players) if per_player else [None]):
                self._place(name, kind, r)
        self._cells = {}  # (grid, relative seat) -> the first entry of its cells
        for name in sorted(model.grids):
            meta = engine.grids[name]
            count = meta.width * meta.height
            if count <= MAX_CELL_ENTRIES:
                for r in (range(players) if model.grids[name].per_player else [None]):
                    self._cells[(name, r)] = self._add_many([f"grid {name}{_who(r)}: cell {i + 1} filled"
                                                             for i in range(count)])
        for name in sorted(engine.slots):
            for r in [*range(players), None]:
                self._place(name, engine.slots[name].kind, r)
        self._counters = {}
        for name in sorted(model.counters):
            c = model.counters[name]
            if c.keyed or c.card_kind is not None:
                continue
            for r in (range(players) if c.per_player else [None]):
                self._counters[(name, r)] = self._add(f"counter {name}" + _who(r))
        self._markers = {name: self._add_many([f"marker {name} held by" + _who(r) for r in range(players)])
                         for name in sorted(model.markers)}
        self._tracks = {}
        for name in sorted(model.tracks):
            for r in range(players):
                self._tracks[(name, r)] = self._add(f"track {name}: space of" + _who(r))
            for piece in sorted(p.name for p in model.pieces.values() if p.track == name):
                self._tracks[(name, piece)] = self._add(f"track {name}: space of {piece}")
        self.size = len(self.labels)
        if self.size > MAX_ENTRIES:
            raise LayoutTooLarge(f"at {players} players the ruleset lays out {self.size:,} entries, more than the "
                                 f"{MAX_ENTRIES:,} a learned evaluation takes (zones, slots and counters per player, "
                                 "times the number, yes/no and text fields of their kinds)")

    def _add(self, label: str) -> int:
        self.labels.append(label)
        return len(self.labels) - 1

    def _add_many(self, labels: list[str]) -> int:
        first = len(self.labels)
        self.labels.extend(labels)
        return first

    def _place(self, name: str, kind: str, r) -> None:
        where = f"{name}{_who(r)}"
        cols = [f"{where}: cards", f"{where}: unseen"]
        for field, how, value in self.columns.get(kind, ()):
            cols.append(f"{where}: {'sum of ' + field if how == 'sum' else field if how == 'true' else f'{field} = {value}'}")
        self._places[(name, r)] = self._add_many(cols)

    def encode(self, sight) -> np.ndarray:
        """The entries of a position as `sight.player` sees it (an `Engine.sight`)."""
        out = np.zeros(self.size, dtype=np.float64)
        n, me = self.players, sight.player
        out[self._round] = sight.round
        out[self._seat + me] = 1.0
        rows = self._def_rows
        for name, owner, _kind, cards in sight.places:
            r = None if owner is None else (owner - me) % n
            at = self._places.get((name, r))
            if at is None:
                continue
            out[at] += len(cards)
            unseen = 0
            for d in cards:
                if d is None:
                    unseen += 1
                else:
                    row = rows[d]
                    if len(row):
                        out[at + 2:at + 2 + len(row)] += row
            out[at + 1] += unseen
        for (name, owner), cells in sight.cells.items():
            at = self._cells.get((name, None if owner is None else (owner - me) % n))
            if at is not None:
                for i in cells:
                    out[at + i] = 1.0
        counters = sight.counters
        for (name, r), at in self._counters.items():
            value = counters.get(name)
            if r is not None and value is not None:
                value = value[(me + r) % n]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[at] = max(-LIMIT, min(LIMIT, value))
            elif isinstance(value, bool):
                out[at] = float(value)
        for name, at in self._markers.items():
            holder = sight.markers.get(name)
            if isinstance(holder, int):
                out[at + (holder - me) % n] = 1.0
        for (name, piece), at in self._tracks.items():
            key = f"P{(me + piece) % n + 1}" if isinstance(piece, int) else piece
            pos = sight.tracks.get(name, {}).get(key)
            out[at] = -1.0 if pos is None else float(pos)
        return out


def _who(r) -> str:
    return "" if r is None else f" (seat +{r})"
