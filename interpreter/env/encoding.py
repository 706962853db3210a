"""A player's view as a fixed-size vector of numbers, laid out from the ruleset's declarations.

The layout depends only on the compiled ruleset and the player count, never on a game, so every
observation of a ruleset has the same length and every position the same meaning. Seats are told
relative to the observing player: block 0 of a per-player place is the observer's own, block 1 the
next seat's, and so on. Only what the view holds is encoded: a card the player does not see counts
in its place's size, never as the card it is.

The blocks, in this order (`ObservationEncoder.layout` lists them with their labels):

1. the game: the round, the phase (one position per phase of the round), whose decision is pending
   (one per relative seat) and whether the game is over;
2. every zone, by name (a per-player zone once per relative seat): its size, then for each card
   definition of its kind (each face of a card counts as a definition) how many of the cards the
   player sees in it are that definition;
3. every slot name of a card kind (once per relative seat, by the owner of the place of the card
   that carries it, and once for cards carried in shared places): the same counts, over all the
   slots of that name;
4. every grid (per player: per relative seat): how many cells are filled, the counts per
   definition, and for a grid of at most 100 cells one position per cell (1 when filled);
5. every counter that is neither keyed nor a card's (per player: per relative seat): its value;
6. every marker: who holds it (nobody, or one position per relative seat);
7. every track: for each of its pieces (the players' by relative seat, then the named pieces), one
   position per space and one for "off the track".

Numbers are float32; a counter's value is clipped into [-1e6, 1e6].
"""
from __future__ import annotations

import numpy as np

from ..core.place import place as place_of

LIMIT = 1e6
MAX_CELL_BITS = 100


class ObservationEncoder:
    """The vector layout of one compiled ruleset (an `Engine`) at one player count, and the encoding
    of views."""

    def __init__(self, engine, players: int):
        self.engine = engine
        self.players = players
        model = engine.model
        self.layout: list[tuple[str, int, int]] = []  # (label, offset, size)
        self.size = 0
        # Card definitions by kind (every face of a card is a definition of its own).
        self.defs_of_kind: dict[str, list[int]] = {}
        for index, kind in enumerate(engine.card_kinds):
            self.defs_of_kind.setdefault(kind, []).append(index)
        self.def_slot = {}  # definition index -> its position among its kind's definitions
        for kind, defs in self.defs_of_kind.items():
            for i, d in enumerate(defs):
                self.def_slot[d] = i

        self._game = self._block("game: round", 1)
        self._phases = {ph.name: i for i, ph in enumerate(model.round.phases)}
        self._phase = self._block("game: phase", len(self._phases))
        self._turn = self._block("game: pending decision's seat", players)
        self._over = self._block("game: over", 1)
        self._zones = {}
        keyed = {key: model.zones[name] for name, keys in engine.zone_keys.items() for key in keys}
        for name in sorted([n for n in model.zones if not model.zones[n].by] + list(keyed)):
            z = model.zones.get(name) or keyed[name]
            for r in range(players if z.per_player else 1):
                who = f" (seat +{r})" if z.per_player else ""
                self._zones[(name, r if z.per_player else None)] = self._block(
                    f"zone {name}{who}: size, then counts per {z.kind} definition", 1 + len(self._defs(z.kind)))
        self._slots = {}
        for name in sorted(engine.slots):
            kind = engine.slots[name].kind
            for r in [*range(players), None]:
                who = f" (seat +{r})" if r is not None else " (shared places)"
                self._slots[(name, r)] = self._block(f"slot {name}{who}: size, then counts per {kind} definition",
                                                     1 + len(self._defs(kind)))
        self._grids = {}
        for name in sorted(model.grids):
            g = model.grids[name]
            meta = engine.grids[name]
            cells = meta.width * meta.height
            bits = cells if cells <= MAX_CELL_BITS else 0
            for r in range(players if g.per_player else 1):
                who = f" (seat +{r})" if g.per_player else ""
                self._grids[(name, r if g.per_player else None)] = (self._block(
                    f"grid {name}{who}: filled cells, counts per {g.kind} definition"
                    + (", one position per cell" if bits else ""), 1 + len(self._defs(g.kind)) + bits), bits)
        self._counters = {}
        for name in sorted(model.counters):
            c = model.counters[name]
            if c.keyed:
                continue
            for r in range(players if c.per_player else 1):
                who = f" (seat +{r})" if c.per_player else ""
                self._counters[(name, r if c.per_player else None)] = self._block(f"counter {name}{who}", 1)
        self._markers = {name: self._block(f"marker {name}: nobody, then per seat", 1 + players)
                         for name in sorted(model.markers)}
        self._tracks = {}
        for name in sorted(model.tracks):
            size = engine.tracks[name].size
            pieces = [f"P{s + 1}" for s in range(players)] + sorted(
                p.name for p in model.pieces.values() if p.track == name)
            for piece in pieces:
                self._tracks[(name, piece)] = self._block(f"track {name}, piece {piece}: spaces, then off", size + 1)

    def _defs(self, kind):
        return self.defs_of_kind.get(kind, [])

    def _block(self, label: str, size: int) -> int:
        offset = self.size
        self.layout.append((label, offset, size))
        self.size += size
        return offset

    # ---- encoding ---------------------------------------------------------------------------------
    def encode(self, view) -> np.ndarray:
        """The vector of `view` (interpreter.core.view.View), of length `size`."""
        out = np.zeros(self.size, dtype=np.float32)
        n = self.players
        me = view.player
        data = view.data

        def rel(seat):  # a seat from 0, relative to the observer
            return (seat - me) % n

        out[self._game] = data["round"]
        if data["phase"] in self._phases:
            out[self._phase + self._phases[data["phase"]]] = 1
        pending = data.get("pending")
        if pending is not None:
            out[self._turn + rel(pending["player"])] = 1
        out[self._over] = 1 if data["result"] is not None else 0
        owner_of = {}  # handle -> relative seat of the place holding it (None: shared)
        grids = self.engine.model.grids
        # The places come zones first, then grids, then slots: a slot's host is placed before it.
        for p in self.engine.places(view):
            where = place_of(p.key)
            name = where.name if where.part is None else p.key
            if p.kind == "slot":
                r = owner_of.get(where.host)
                base = self._slots[(name, r)]
            else:
                r = rel(where.owner) if where.owner is not None else None
                if p.kind == "zone":
                    base = self._zones[(name, r)]
                else:
                    base, bits = self._grids[(name, r)]
                    if bits:
                        count = len(self._defs(grids[name].kind))
                        for cell in p.cells:
                            out[base + 1 + count + cell] = 1
            out[base] += len(p.cards)
            for h, d in enumerate(p.cards, p.first):
                owner_of[h] = r
                if d is not None:
                    out[base + 1 + self.def_slot[d]] += 1
        counters = data["counters"]
        for (name, r), at in self._counters.items():
            value = counters[name]
            if r is not None and value is not None:
                value = value[(me + r) % n]
            if value is not None:  # a value the player does not see (a private or hidden counter) reads 0
                out[at] = max(-LIMIT, min(LIMIT, value))
        for name, at in self._markers.items():
            holder = data["markers"][name]
            out[at + (0 if holder is None else 1 + rel(holder))] = 1
        for (name, piece), at in self._tracks.items():
            key = piece
            if piece[0] == "P" and piece[1:].isdigit():  # a player's piece, by relative seat
                key = f"P{(me + int(piece[1:]) - 1) % n + 1}"
            pos = data["tracks"][name].get(key)
            size = self.engine.tracks[name].size
            out[at + (size if pos is None else pos)] = 1
        return out

