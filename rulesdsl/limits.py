"""Engine-wide ceilings: what no ruleset can raise, whatever its game block asks.

A ruleset sets its own `step_budget`, `round_limit` and `decision_limit`; each must stay at or below
the ceiling here, and the checker refuses a larger one at its position. The ceilings keep every
game, however hostile its rules, to a bounded amount of work and memory (docs/language.md,
"Limits").
"""
from __future__ import annotations

MAX_INT = (1 << 63) - 1            # integers live in -2^63 .. 2^63-1; going outside is a runtime error
MIN_INT = -(1 << 63)
MAX_STEP_BUDGET = 1_000_000        # steps between two decisions
MAX_ROUND_LIMIT = 10_000           # rounds in one game (in a game of hands: in one hand)
MAX_HAND_LIMIT = 1_000             # hands in one game
MAX_DECISION_LIMIT = 1_000_000     # decisions in one game
MAX_GAME_STEPS = 20_000_000        # steps in one whole game, all decisions together
MAX_CARDS = 1_000_000              # cards created in one game
MAX_FACE_DEFS = 100_000            # definitions of cards' faces after their first (cards x faces)
MAX_KEYS = 100_000                 # keys of one keyed counter (per player)
MAX_PLAYERS = 16                   # seats of a game
MAX_TRACK_SPACES = 10_000          # spaces of one track
MAX_GRID_CELLS = 10_000            # cells of one grid (width x height)
MAX_DEF_DEPTH = 32                 # definitions calling definitions calling ... at most this deep
MAX_INLINED_NODES = 20_000         # how much the compiler may copy while expanding small definitions
