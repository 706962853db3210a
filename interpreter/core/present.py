"""How values and states are shown to people: labels, option lists, readable state snapshots.

The engine's decisions and state are data (card numbers, seat indexes, cell indexes); this module is
the one place that turns them into the words a player reads, a trace records and a screen shows:
card names, `P2`, `(3,4)`. Every function reads the shared program (names, grid sizes) and one
game's state, and changes neither.
"""
from __future__ import annotations

import copy
import functools
import re

from .place import place
from .visibility import seen_in_place, visibility


def label(prog, st, value, t, numbered: bool = False) -> str:
    """How a value of static type `t` is shown to a player and in traces. `numbered`: a card is
    told from the cards of the same name in its place by its rank among them (`Name #2`)."""
    kind = t[0]
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "list":
        return "[" + ", ".join(label(prog, st, v, t[1], numbered) for v in value) + "]"
    if kind == "card":
        name = prog.names[st.card_def[value]]
        if numbered:
            same = [c for c in st.zones.get(st.loc[value], ()) if prog.names[st.card_def[c]] == name]
            if len(same) > 1:
                return f"{name} #{same.index(value) + 1}"
        return name
    if kind == "def":
        return prog.names[value]
    if kind == "player":
        return f"P{value + 1}"
    if kind == "cell":
        return cell_label(prog.grid_meta[t[1]].width, value)
    return str(value)


def cell_label(width: int, cell: int) -> str:
    """`(column,row)`, both from 1."""
    return f"({cell % width + 1},{cell // width + 1})"


@functools.lru_cache(maxsize=8192)  # the same names and places come back at every choice
def natural(text: str) -> tuple:
    """The key that orders texts as people read them: the runs of digits by their value, so that
    `Red 2` comes before `Red 10` and `(2,1)` before `(10,1)`; texts equal by it (`02`, `2`) keep
    the order of their characters."""
    parts = _DIGITS.split(text)
    for i in range(1, len(parts), 2):
        parts[i] = int(parts[i])
    return tuple(parts), text


_DIGITS = re.compile(r"([0-9]+)")


def unseen_among(prog, st, cards, player: int) -> dict:
    """{card: its position (from 1, bottom first) in its place} for the cards of `cards` that `player`
    does not see where they lie; each place is asked once, and a place the player sees whole (their
    own hand, a public row) costs no more."""
    loc = st.loc
    hiding = [key for key in {loc[card] for card in cards} if not _sees_whole(prog, key, player)]
    if not hiding:
        return {}
    out = {}
    for card in cards:
        if loc[card] in hiding:
            at = unseen_at(prog, st, card, player)
            if at is not None:
                out[card] = at
    return out


@functools.lru_cache(maxsize=1 << 12)
def _sees_whole(prog, key: str, player: int) -> bool:
    """Whether `player` sees every card of place `key` (a fact of the ruleset, kept per program)."""
    vis = visibility(prog, key)
    return vis != "top" and seen_in_place(vis, key, player, False)


def unseen_at(prog, st, card: int, player: int):
    """The position (from 1, bottom first) of `card` in its place when `player` does not see it
    there (a card held facing the others, another player's hand), else None."""
    key = st.loc[card]
    cards = st.zones.get(key)
    if cards is None:  # a grid's cell: seen as the grid is
        return None if seen_in_place(visibility(prog, key), key, player, False) else 0
    top = cards[-1] == card
    if seen_in_place(visibility(prog, key), key, player, top) or st.revealed.get(card, 0) >> player & 1:
        return None
    return cards.index(card) + 1


def split_unseen(prog, st, values, chooser):
    """(the values `chooser` sees, [(label, value)] for the cards they do not see where they lie,
    labelled by place and in place order): how a choice offers cards its chooser does not see."""
    if chooser is None or not prog.may_hide_from_chooser:
        return values, []
    unseen = unseen_among(prog, st, values, chooser)
    if not unseen:
        return values, []
    loc = st.loc
    hidden = sorted((natural(loc[v]), at, v) for v, at in unseen.items())
    return [v for v in values if v not in unseen], [(unseen_label(loc[v], at), v) for _, at, v in hidden]


def unseen_label(key: str, position: int) -> str:
    """How a card the chooser does not see is offered: by its place, `card 3 of P1.hand`."""
    return f"card {position} of {key}"


def options_for(prog, st, values, elem_type, chooser=None):
    """Labels and values of a choice among elements, in their stable order: cards sorted by name
    then place, equal cards in one place offered once, a place named only when two places hold the
    same card; numbers once each, ascending; anything else sorted by label. Names, places and labels
    are in natural order (`natural`). A card that `chooser` does not see where it lies (a hand held
    facing the others) is offered by its place (`unseen_label`), after the cards they see, in place
    order: a name, or an order by names, would tell them what it is."""
    kind = elem_type[0]
    if kind == "card" and chooser is not None:
        values, hidden = split_unseen(prog, st, values, chooser)
        if hidden:
            labels, kept = options_for(prog, st, values, elem_type)
            return labels + [label for label, _ in hidden], kept + [v for _, v in hidden]
    if kind == "card":
        seen = {}
        for v in values:
            key = (st.card_def[v], st.loc[v])
            if key not in seen:
                seen[key] = v
        names = prog.names
        pairs = sorted(((names[st.card_def[v]], st.loc[v], v) for v in seen.values()),
                       key=lambda p: (natural(p[0]), natural(p[1]), p[2]))
        counts = {}
        for name, _, _ in pairs:
            counts[name] = counts.get(name, 0) + 1
        labels = [f"{name} ({where})" if counts[name] > 1 else name for name, where, _ in pairs]
        return labels, [v for _, _, v in pairs]
    if kind == "int":
        vs = sorted(set(values))
        return [str(v) for v in vs], vs
    pairs = sorted(((label(prog, st, v, elem_type), i, v) for i, v in enumerate(values)),
                   key=lambda p: (natural(p[0]), p[1]))
    return [p[0] for p in pairs], [p[2] for p in pairs]


def snapshot(prog, st) -> dict:
    """Every zone's cards in order, counters, track positions, grids and marker holders, by name."""
    names = prog.names

    def cards(ids):
        return [names[st.card_def[c]] for c in ids]
    grids = {}
    for key, cells in st.grids.items():
        width = prog.grid_meta[place(key).name].width
        grids[key] = {cell_label(width, i): names[st.card_def[c]] for i, c in sorted(cells.items())}
    return {
        "zones": {k: cards(v) for k, v in st.zones.items()},
        "counters": copy.deepcopy(st.counters),
        "markers": {k: (f"P{v + 1}" if v is not None else None) for k, v in st.markers.items()},
        "tracks": {k: {p: pos for p, pos in v.items() if pos is not None} for k, v in st.tracks.items()},
        "grids": grids,
        "rng": st.rng,
    }
