"""TEMPORARY: player views until the engine has its own (`Engine.view`, `Engine.determinize`).

Delete this file when the engine gains `view` and `determinize`: `views.py` uses them as soon as
they exist. Until then a "view" wraps a copy of the whole state (it hides nothing) and a
determinization is a copy of that copy, so bots are written against the final interface now.
"""
from __future__ import annotations


class InterimView:
    """A copy of the state standing in for a player's view; `player` is the seat it is for."""

    __slots__ = ("state", "player")

    def __init__(self, state, player: int):
        self.state = state
        self.player = player


def view(engine, state, player: int) -> InterimView:
    """Stand-in for `Engine.view(state, player)`."""
    return InterimView(engine.clone(state), player)


def determinize(engine, view: InterimView, rng):
    """Stand-in for `Engine.determinize(view, rng)`: a game state consistent with the view."""
    return engine.clone(view.state)
