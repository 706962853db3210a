"""The board: what one player sees of a game, laid out for people (issue 31).

`build(engine, view, options)` turns a player's view (`Engine.view`, never the state) and the
ruleset's `display` section (rulesdsl/display.py) into a structured board: an area for what is
shared and one per player; zones with identical cards grouped (`Coin 2 x19`); tracks with their
pieces; markers with their holders; grids as grids; counters by their labels; the pending
question with its options named. The terminal table (`text.py`) and other screens render it; none
of them reads a view or a state itself.
"""
from .model import Board, build

__all__ = ["Board", "build"]
