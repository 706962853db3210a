"""What a bot may see: the engine's player view and its determinization, whichever engine runs."""
from __future__ import annotations

from . import _interim


def view(engine, state, player: int):
    """The view of `state` that `player` may see (the engine's own `view` once it has one)."""
    if hasattr(engine, "view"):
        return engine.view(state, player)
    return _interim.view(engine, state, player)


def determinize(engine, view, rng):
    """A full game state consistent with `view`, its hidden parts drawn with `rng`."""
    if hasattr(engine, "determinize"):
        return engine.determinize(view, rng)
    return _interim.determinize(engine, view, rng)
