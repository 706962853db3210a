"""Who sees what: the one authority that a player's view (view.py), the public trace (the run's
`move` and `face` events) and each player's trace (`PlayerSink`) ask.

Visibility is per place (docs/language.md): a zone, grid or slot is declared `public` (seen by
everyone), `private` (by the player it belongs to), `hidden` (by nobody), `hidden except top`
(`top`: by nobody but its top card) or `public except owner` (`others`: by everyone but the player it
belongs to). A slot's cards are seen as its own declaration says, wherever
the card holding it lies. `seen_in_place` answers for one card of one place; `player_event` gives
the part of a trace event one player may read. What a `reveal` or a hidden face adds to that is the
view's (view.py) and the trace's business: a trace event carries no state to know it.

The public trace names a card unless no player sees it (the question `seen_in_place` answers for
`player=None`): it is the record a referee reads, not a player's.
"""
from __future__ import annotations

from .place import place, unnumbered_slot_key

__all__ = ["CardCounterName", "visibility", "seen_in_place", "sees", "size_known", "has_private_place", "player_event"]


def visibility(prog, key: str) -> str:
    """How the declaration of place `key` lets its cards be seen: `public`, `private`, `hidden` or
    `top` (a key naming no declaration is public)."""
    where = place(key)
    if where.host is not None:
        return prog.slot_meta[where.name].visibility
    decl = prog.model.zones.get(where.name) or prog.model.grids.get(where.name)
    return decl.visibility if decl is not None else "public"


def seen_in_place(vis: str, key: str, player: int | None, top: bool) -> bool:
    """Whether `player` (a seat from 0; None: some player, whoever) sees a card in place `key` of
    visibility `vis` (`top`: it is the place's top card)."""
    if vis == "public":
        return True
    if vis == "private":
        return player is None or place(key).owner == player
    if vis == "others":  # held facing the other players
        return player is None or place(key).owner != player
    return vis == "top" and top


def sees(prog, key: str, player: int | None, top: bool) -> bool:
    """Whether `player` (None: some player) sees a card in place `key` (`top`: as its top card)."""
    return seen_in_place(visibility(prog, key), key, player, top)


def size_known(prog, key: str, player: int | None) -> bool:
    """Whether `player` (None: some player, whoever) knows how many cards zone `key` holds: always,
    unless its declaration keeps its size `private` to its owner or `hidden` from everyone."""
    size = prog.secret_sizes.get(place(key).name) if prog.secret_sizes else None
    if size is None or player is None:
        return True
    return size == "private" and place(key).owner == player


def has_private_place(prog) -> bool:
    """Whether a zone or grid of the ruleset is seen by its owner only, so that a choice may offer
    cards other players do not see."""
    decls = list(prog.model.zones.values()) + list(prog.model.grids.values())
    return any(d.visibility in ("private", "others") for d in decls)


class CardCounterName(str):
    """How a trace names a card's counter, `eggs[Name #5]`: the card by its name and its number.
    It is the text the public trace writes, and keeps the same name without the number
    (`unnumbered`, `eggs[Name]`) for the players' traces: numbers are given as cards are made, so
    one tells which card a face-down card is."""

    def __new__(cls, counter: str, card_name: str, card: int):
        self = super().__new__(cls, f"{counter}[{card_name} #{card}]")
        self.parts = (counter, card_name, card)
        return self

    def __getnewargs__(self):
        # A copy or a pickle (an event kept by a sink) is made again from the parts, not the text.
        return self.parts

    @property
    def unnumbered(self) -> str:
        """The name without the card's number: `eggs[Name]`."""
        counter, card_name, _ = self.parts
        return f"{counter}[{card_name}]"


def player_event(prog, player: int, event: dict, private: bool) -> dict | None:
    """Trace event `event` as `player` may read it (None: nothing of it, a card moved between two
    zones whose size the player does not know): the names of cards they do not see become `?`,
    another player's reveal hides its card, a `state` event masks the cards of the places they do
    not see (a card revealed to them too: an event carries no state) and drops the generator's
    state, and no card's number is left (see `_without_card_numbers`). Another player's choice keeps
    its labels when the event says it is `public` (view.py, `choice_is_public`); an event that does not say
    (a trace written before it did) keeps them only when the ruleset has no private place
    (`private`: `has_private_place`)."""
    kind, data = event["event"], event["data"]

    def seen(key, top):
        return key is None or sees(prog, key, player, top)
    if kind == "setup":  # the seed would let the deal be computed again
        data = {k: v for k, v in data.items() if k != "seed"}
    # A card leaving a `hidden except top` zone for a place the player does not see is masked:
    # the event does not say whether it was the top card (set-up may set cards aside unseen).
    elif kind in ("move", "place") and not (seen(data.get("from"), False)
                                            or seen(data.get("to") or data.get("grid"), not data.get("bottom"))):
        data = dict(data, card="?")
    elif kind == "blocked" and not seen(data.get("from"), False):
        data = dict(data, card="?")  # refused where it was, a place this player does not see
    elif kind == "reveal" and data["to"] not in ("all", f"P{player + 1}"):
        data = dict(data, card="?")
    elif kind == "face" and not seen(data["zone"], False):
        # A card turned where this player does not see it: which card, and which face of it.
        hidden = data["now"] if data["now"] in prog.names_of_hidden_faces else "?"
        data = dict(data, card="?", now=hidden)
    elif kind == "choice" and event["player"] != f"P{player + 1}" and data.get("options_public") is False:
        # Offered from an amount this player does not see: not even how many options there were.
        data = dict(data, options=["?"], choice=data["choice"] if data.get("public", not private) else "?")
    elif kind == "choice" and event["player"] != f"P{player + 1}" and not data.get("public", not private):
        # Not how many options either: equal cards are offered once, so the count tells duplicates.
        data = dict(data, choice="?", options=["?"])
    elif kind == "together" and data.get("secret"):
        me = f"P{player + 1}"
        data = dict(data, choices={p: label if p == me else "?" for p, label in data["choices"].items()})
    elif kind == "counter" and prog.secret_counters:
        vis = prog.secret_counters.get(str(data["name"]).split("[", 1)[0])
        if vis == "hidden" or vis == "private" and event["player"] != f"P{player + 1}":
            data = dict(data, value="?", was="?")
    elif kind == "state":
        zones = {}
        for key, cards in data["zones"].items():
            vis, last = visibility(prog, key), len(cards) - 1
            zones[key] = [n if seen_in_place(vis, key, player, i == last) else "?" for i, n in enumerate(cards)]
        grids = {}
        for key, cells in data["grids"].items():
            shown = seen_in_place(visibility(prog, key), key, player, False)
            grids[key] = {c: n if shown else "?" for c, n in cells.items()}
        data = dict(data, zones=zones, grids=grids)
        data.pop("rng", None)
        if prog.secret_counters:
            from .view import secret_counters_seen  # view.py builds on this module
            data["counters"] = secret_counters_seen(prog, data["counters"], player, "?")
    if prog.secret_sizes:
        ends = [data.get("from"), data.get("to")]
        if kind == "move" and all(isinstance(k, str) and not size_known(prog, k, player) for k in ends):
            return None  # between places this player cannot count: not even that it happened
        data = _sizes_masked(prog, player, kind, data)
    if prog.slot_meta or prog.card_counters:
        data = _without_card_numbers(data)
    return dict(event, data=data)


def _sizes_masked(prog, player: int, kind: str, data: dict) -> dict:
    """`data` without the sizes of the zones whose size `player` does not know (`size_known`): a
    card moved into or out of such a zone keeps the other place only (the zone is written `?`; the
    card was masked already where neither place shows it), a shuffle, a refill or a pass does not say
    how many cards it moved there, and a `state` event writes such a zone `?`."""
    def unknown(key):
        return isinstance(key, str) and not size_known(prog, key, player)
    if kind in ("move", "place"):
        hidden = {f: "?" for f in ("from", "to") if unknown(data.get(f))}
        if hidden:
            return dict(data, **hidden)
    elif kind == "shuffle" and unknown(data.get("zone")):
        return dict(data, cards="?")
    elif kind == "random":  # it does not say what it picked from, which may be such a zone
        return dict(data, of="?")
    elif kind == "refill" and (unknown(data.get("zone")) or unknown(data.get("from"))):
        return dict(data, cards="?")
    elif kind == "pass" and isinstance(data.get("cards"), dict):
        keys = prog.player_keys[data["zone"]]
        return dict(data, cards={p: "?" if unknown(keys[int(p[1:]) - 1]) else n for p, n in data["cards"].items()})
    elif kind == "state":
        return dict(data, zones={k: "?" if unknown(k) else cards for k, cards in data["zones"].items()})
    return data


def _without_card_numbers(data: dict) -> dict:
    """An event's data with the game's card numbers taken out, since a number tells which card it
    is (cards are numbered as they are made), which a player may not know of a face-down card: a
    card's slot `#17.above` is written `#?.above` (in a `state` event `#?1.above`, `#?2.above`, ...
    one number per card, in the order of the zones), a card's counter `eggs[Name #17]` as
    `eggs[Name]`."""
    data = dict(data)
    for field in ("from", "to", "zone"):
        key = data.get(field)
        if isinstance(key, str):
            where = place(key)
            if where.host is not None:
                data[field] = unnumbered_slot_key(where.name)
    name = data.get("name")
    if isinstance(name, CardCounterName):
        data["name"] = name.unnumbered
    zones = data.get("zones")
    if isinstance(zones, dict):
        marks: dict = {}
        renamed = {}
        for key, cards in zones.items():
            where = place(key)
            if where.host is not None:
                key = unnumbered_slot_key(where.name, marks.setdefault(where.host, len(marks) + 1))
            renamed[key] = cards
        data["zones"] = renamed
    return data
