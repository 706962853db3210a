"""Arranging a starting position: the documented way to set a game up by hand, before play.

    state = engine.new_game(players, seed, setup_only=True)      # set-up done, nothing played
    pos = engine.arrange(state)
    pos.fill_zone("P1.hand", ["Card A", "Card B"])               # bottom first
    pos.fill_zone("P1.row[2].above", ["Card D"])                 # a slot of the row's 2nd card
    pos.fill_cell("P1.board", 2, 3, "Card C")                    # column, row
    pos.set_counter("P1.points", 4)                              # `name`, `P1.name`, `name[key]`
    pos.give_marker("first", 2)                                  # seats from 1
    pos.put_piece("path", "P1", 5)
    engine.start_at(state, "phase name", first=0)                # and play on

Arranging is not playing: no card moves through the rules, no trigger runs, nothing is traced.
Cards displaced from an arranged zone or cell are put aside, in a zone named `set_aside` that no
rule reads; a named card is taken from there first, then from the owner's zones, then from shared
zones, then from anywhere else; a card that the set-up did not create is created. A name may be
the name of one face of a card (its own name, or a hidden face's, such as a back shared by every
card): the card found is turned to that face. Every mistake is a `PositionError` (a ValueError)
saying what is wrong and, where it can, what would be right.
"""
from __future__ import annotations

import re

from rulesdsl.errors import suggest
from rulesdsl.limits import MAX_CARDS

from .place import place, slot_key
from .state import GameState

SET_ASIDE = "set_aside"


class PositionError(ValueError):
    """An arrangement that does not fit the game: `place` is "key" when the name is wrong."""

    def __init__(self, message: str, hint: str | None = None, place: str = "value"):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.place = place


class Position:
    """Edits one game's state, stopped after set-up, into a chosen starting position."""

    def __init__(self, program, st: GameState):
        if st.stage != "setup" or st.stack or st.pending is not None:
            raise PositionError("only a game stopped after its set-up can be arranged: "
                                "start it with `new_game(..., setup_only=True)`")
        self.program = program
        self.st = st
        st.zones.setdefault(SET_ASIDE, [])
        self._claimed: set[int] = set()
        self._by_name: dict[str, list[int]] = {}
        for d in program.cards.defs + program.cards.face_defs:
            self._by_name.setdefault(d.name, []).append(d.index)
        # A card's definitions (one per face) share the index of its first face.
        self._card_of = [next(iter(t.values())) if t else i for i, t in enumerate(program.face_table)]

    def zones(self) -> list[str]:
        """The zone keys of this game (`stack1`, `P1.hand`, ...), sorted."""
        return sorted(z for z in self.st.zones if z != SET_ASIDE)

    def fill_zone(self, key: str, names: list[str]):
        """Make zone `key` hold exactly the named cards, bottom first. `ZONE[i].SLOT` is the slot of
        the zone's i-th card (from 1, bottom first), arranged after that zone."""
        st = self.st
        key = self._slot_key(key)
        if place(key).host is not None:
            st.zones.setdefault(key, [])
        elif key not in st.zones or key == SET_ASIDE:
            zones = self.zones()
            raise PositionError(f"no zone `{key}`; zones: {', '.join(zones)}", suggest(key, zones), "key")
        for c in list(st.zones[key]):
            self._relocate(c, SET_ASIDE)
        for j, name in enumerate(names):
            try:
                self._relocate(self._find(name, key), key)
            except PositionError as exc:
                exc.index = j  # which name of the list was wrong
                raise

    def _slot_key(self, key: str) -> str:
        m = re.fullmatch(r"(.+)\[([0-9]+)\]\.([A-Za-z_][A-Za-z0-9_]*)", key)
        if m is None:
            return key
        zone, i, slot = m.group(1), int(m.group(2)), m.group(3)
        zone = self._slot_key(zone)
        held = self.st.zones.get(zone)
        if held is None or zone == SET_ASIDE:
            raise PositionError(f"no zone `{zone}`", suggest(zone, self.zones()), "key")
        if not 1 <= i <= len(held):
            raise PositionError(f"`{zone}` holds {len(held)} cards: there is no card {i} (from 1) in it", place="key")
        meta = self.program.slot_meta.get(slot)
        card = held[i - 1]
        kind = self.program.def_kind[self.st.card_def[card]]
        if meta is None or meta.host != kind:
            names = self.program.slots_of_kind.get(kind, ())
            raise PositionError(f"{kind} cards have no slot `{slot}`" + (f"; slots: {', '.join(names)}" if names else ""),
                                suggest(slot, names), "key")
        return slot_key(card, slot)

    def fill_cell(self, key: str, x: int, y: int, name: str):
        """Put the named card on cell (x, y) of grid `key` (columns and rows from 1)."""
        st = self.st
        if key not in st.grids:
            raise PositionError(f"no grid `{key}`; grids: {', '.join(sorted(st.grids))}",
                                suggest(key, st.grids), "key")
        gname = place(key).name
        meta = self.program.grid_meta[gname]
        idx = (y - 1) * meta.width + (x - 1)
        if not (1 <= x <= meta.width and 1 <= y <= meta.height) or idx not in meta.playable:
            raise PositionError(f"grid `{gname}` has no cell ({x},{y}): it is "
                                f"{meta.width} columns by {meta.height} rows", place="key")
        old = st.grids[key].get(idx)
        if old is not None:
            self._relocate(old, SET_ASIDE)
        c = self._find(name, key)
        self.st.detach(c)
        st.grids[key][idx] = c
        st.loc[c] = key

    def set_counter(self, key: str, value: int):
        """Set a counter written `name`, `P2.name`, `name[key]` or `P2.name[key]`, within its bounds."""
        st = self.st
        m = re.fullmatch(r"(?:P([0-9]+)\.)?([A-Za-z_][A-Za-z0-9_]*)(?:\[([A-Za-z0-9_]+)\])?", key)
        if not m or m.group(2) not in st.counters:
            raise PositionError(f"no counter `{key}`", suggest(key, st.counters), "key")
        seat, name, sub = m.groups()
        decl = self.program.model.counters[name]
        if (seat is not None) != decl.per_player:
            wanted = f"`P1.{name}`" if decl.per_player else f"`{name}`"
            raise PositionError(f"counter `{name}` is {'' if decl.per_player else 'not '}per player: "
                                f"write {wanted}", place="key")
        if (sub is not None) != decl.keyed:
            wanted = f"`{name}[key]`" if decl.keyed else f"`{name}`"
            raise PositionError(f"counter `{name}` is {'' if decl.keyed else 'not '}keyed: write {wanted}",
                                place="key")
        if seat is not None and not 1 <= int(seat) <= st.player_count:
            raise PositionError(f"seat {seat} does not exist: seats are 1 to {st.player_count}", place="key")
        low, high = st.bounds.get(name, (None, None))
        if (low is not None and value < low) or (high is not None and value > high):
            if low is not None and high is not None:
                held = f"holds {low} to {high}"
            else:
                held = f"is at least {low}" if low is not None else f"is at most {high}"
            raise PositionError(f"counter `{name}` {held}, not {value}")
        if seat is not None:
            table = st.counters[name]
            if sub is not None:
                table[int(seat) - 1][sub] = value
            else:
                table[int(seat) - 1] = value
        elif sub is not None:
            st.counters[name][sub] = value
        else:
            st.counters[name] = value

    def give_marker(self, name: str, seat: int):
        """Give a marker to a seat (from 1)."""
        st = self.st
        if name not in st.markers:
            raise PositionError(f"no marker `{name}`", suggest(name, st.markers), "key")
        if not 1 <= seat <= st.player_count:
            raise PositionError(f"marker `{name}`: seat {seat} does not exist: seats are 1 to {st.player_count}")
        st.markers[name] = seat - 1

    def put_piece(self, track: str, piece: str, space: int):
        """Put a piece (`P1`, or a named piece) on a space of a track (from 0)."""
        st = self.st
        if track not in st.tracks:
            raise PositionError(f"no track `{track}`", suggest(track, st.tracks), "key")
        if piece not in st.tracks[track]:
            raise PositionError(f"no piece `{piece}` on track `{track}`", suggest(piece, st.tracks[track]), "key")
        size = self.program.track_meta[track].size
        if not 0 <= space < size:
            raise PositionError(f"track `{track}` has spaces 0 to {size - 1}, not {space}")
        st.tracks[track][piece] = space

    # ---- cards ----------------------------------------------------------------------------------
    def _find(self, name: str, key: str) -> int:
        """A card named `name`, of the kind zone or grid `key` holds, not yet placed by this arrangement."""
        st, prog = self.st, self.program
        if name not in self._by_name:
            raise PositionError(f"no card named `{name}`", suggest(name, self._by_name))
        # A zone or grid holds cards of one kind: a card of another kind cannot be put there.
        where = place(key)
        base = where.name
        decl = prog.model.zones.get(base) or prog.model.grids.get(base) or (
            prog.slot_meta[base] if where.host is not None else None)
        defs = {d for d in self._by_name[name] if decl is None or prog.def_kind[d] == decl.kind}
        if not defs:
            kinds = sorted({prog.def_kind[d] for d in self._by_name[name]})
            raise PositionError(f"`{name}` is a {' or '.join(kinds)} card, and `{key}` holds {decl.kind} cards")
        faces = {self._card_of[d]: d for d in sorted(defs, reverse=True)}  # a card -> the face named
        # A card is taken first from the places of this place's player (or, for a slot, from the
        # slots of the same card), then from a shared place.
        mine = (where.owner, where.host) if where.owner is not None or where.host is not None else None

        def rank(c):
            loc = st.loc[c]
            if loc == SET_ASIDE:
                return 0
            there = place(loc)
            if mine is not None and (there.owner, there.host) == mine:
                return 1
            if there.owner is None and there.host is None:
                return 2
            return 3
        card_of = self._card_of
        candidates = [c for c in range(len(st.card_def)) if card_of[st.card_def[c]] in faces and c not in self._claimed]
        if candidates:
            c = min(candidates, key=lambda c: (rank(c), c))
            st.card_def[c] = faces[card_of[st.card_def[c]]]
        else:
            if len(st.card_def) >= MAX_CARDS:
                raise PositionError(f"more than {MAX_CARDS:,} cards in one game, the most the engine holds")
            c = len(st.card_def)
            st.card_def.append(sorted(defs)[0])
            st.loc.append(SET_ASIDE)
            st.zones[SET_ASIDE].append(c)
        self._claimed.add(c)
        return c

    def _relocate(self, c: int, key: str):
        self.st.detach(c)
        self.st.zones.setdefault(key, []).append(c)
        self.st.loc[c] = key
