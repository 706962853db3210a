"""Where cards lie: a zone, a grid or a card's slot, as a `Place` read from its key.

A game state, a trace and a saved game name each place by a key, a string whose format is part of
those files: `market` (a shared zone or grid), `P2.hand` (player 2's zone or grid), `piles[red]`
(the zone `red` of a zone declared one per value, `per NAME`), `#17.above` (the slot `above` of
card 17; in a view, of the card with handle 17). This module is the one
place that reads a key (`place`) and the one that writes it (`Place.key`, `player_key`,
`slot_key`, and `unnumbered_slot_key` for a player's trace); everything else asks them instead of
splitting strings.

Reading a key is cached: the same few keys are read again and again by every move, view and
trace of every game, and a `Place` is an immutable value, so one cache serves all games and
threads. The cache is bounded because slot keys name cards, and a long series of games makes
many.
"""
from __future__ import annotations

import functools

import attrs

__all__ = ["Place", "place", "player_key", "keyed_key", "slot_key", "unnumbered_slot_key"]


@attrs.frozen(slots=True)
class Place:
    """A place of cards: `name` is its declaration's name (a zone's, a grid's or a slot's); `owner`
    the seat (from 0) of the player it belongs to, or None; `host` the number of the card whose
    slot it is, or None; `part` the value naming it among the zones of a zone declared one per
    value, or None. A place has at most one of owner, host and part."""

    name: str
    owner: int | None = None
    host: int | None = None
    part: str | None = None

    @property
    def slot(self) -> bool:
        """Whether this is a card's slot."""
        return self.host is not None

    @property
    def key(self) -> str:
        """The key naming this place in a game state, a trace or a saved game."""
        if self.host is not None:
            return slot_key(self.host, self.name)
        if self.owner is not None:
            return player_key(self.owner, self.name)
        if self.part is not None:
            return keyed_key(self.name, self.part)
        return self.name


def player_key(seat: int, name: str) -> str:
    """The key of player `seat`'s (from 0) zone or grid `name`: `P2.hand`."""
    return f"P{seat + 1}.{name}"


def keyed_key(name: str, part) -> str:
    """The key of the zone `part` of zone `name` declared one per value: `piles[red]`."""
    return f"{name}[{part}]"


def slot_key(host: int, name: str) -> str:
    """The key of slot `name` of card `host`: `#17.above`."""
    return f"#{host}.{name}"


def unnumbered_slot_key(name: str, mark: int | str = "") -> str:
    """How a player's trace names slot `name` of a card without the card's number, which would tell
    which card it is: `#?.above`, or with a `mark` telling the cards of one event apart, `#?2.above`."""
    return f"#?{mark}.{name}"


@functools.lru_cache(maxsize=1 << 16)
def place(key: str) -> Place:
    """The place a key names; the inverse of `Place.key`. A key without a dot, or whose part before
    the dot is not `P` or `#` and a number written as `Place.key` writes it, names a shared place
    by the whole key."""
    dot = key.find(".")
    if dot > 1:
        lead, number = key[0], key[1:dot]
        if number.isascii() and number.isdigit() and (number[0] != "0" or number == "0"):
            if lead == "#":
                return Place(key[dot + 1:], host=int(number))
            if lead == "P":
                return Place(key[dot + 1:], owner=int(number) - 1)
    bracket = key.find("[")
    if bracket > 0 and key.endswith("]"):
        return Place(key[:bracket], part=key[bracket + 1:-1])
    return Place(key)
