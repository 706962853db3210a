"""Game state as plain data, and the seeded random number generator that lives inside it."""
from __future__ import annotations

import copy

from .place import place
from .ir import decision_json

MASK64 = (1 << 64) - 1


def copy_value(value):
    """A copy of a counter's or a local's value: lists and tables copied, at any depth."""
    if type(value) is list:
        return [copy_value(v) for v in value] if value and type(value[0]) in (list, dict) else list(value)
    if type(value) is dict:
        return {k: copy_value(v) if type(v) in _NESTED else v for k, v in value.items()}
    return value


_NESTED = (list, dict)


def _pending_json(pending: dict | None) -> dict | None:
    """The pending decision as JSON data, its decision record (ir.py) written as a dict."""
    if pending is None:
        return None
    return copy.deepcopy(dict(pending, how=decision_json(pending["how"])))


class Zones(dict):
    """The zones of a ruleset whose cards have slots: a card's slot is a zone that exists only while
    it holds cards, and reads as empty otherwise (rulesets without slots use a plain dict)."""

    __slots__ = ()

    def __missing__(self, key):
        return ()


class Frame:
    """One running body: which procedure, where in it, its local names and the acting player."""

    __slots__ = ("proc", "pc", "env", "active")

    def __init__(self, proc: str, pc: int, env: dict, active):
        self.proc = proc
        self.pc = pc
        self.env = env
        self.active = active

    def to_json(self) -> dict:
        """The frame as JSON data."""
        return {"proc": self.proc, "pc": self.pc, "env": dict(sorted(self.env.items())), "active": self.active}


class GameState:
    """Everything that changes during a game. The engine's calls change it, each through a `Run`
    (`new_game`, `apply`, `start_at`, and an evaluation, which counts its steps); so do the
    arrangement of a starting position (position.py) and a view's dealing of the cards it hides
    (view.py). Everything else only reads it, or changes a clone."""

    __slots__ = ("player_count", "seed", "rng", "stage", "round", "phase_index", "phase", "queue",
                 "zones", "loc", "card_def", "counters", "markers", "tracks", "grids", "stack",
                 "pending", "result", "seq", "decisions", "steps", "total_steps", "reached",
                 "zone_limits", "keyed_init", "bounds", "revealed", "hand")

    def __init__(self, player_count: int, seed: int):
        self.player_count = player_count
        self.seed = seed
        self.rng = seed & MASK64
        self.stage = "new"
        self.round = 0
        self.phase_index = -1
        self.phase = None
        self.queue: list = []
        self.zones: dict[str, list[int]] = {}
        self.loc: list[str] = []
        self.card_def: list[int] = []
        self.counters: dict = {}
        self.markers: dict = {}
        self.tracks: dict = {}
        self.grids: dict = {}
        self.stack: list[Frame] = []
        # {"player", "prompt", "options" (labels), "how" (a decision record of ir.py)}, or None
        self.pending: dict | None = None
        self.result: dict | None = None
        self.seq = 0
        self.decisions = 0
        self.steps = 0
        self.total_steps = 0  # steps of all earlier decisions: the game's whole work, capped
        self.reached: dict[str, list[bool]] = {}
        # Values the rules derive from the player count at the start: they belong to this game.
        self.zone_limits: dict[str, int] = {}
        self.keyed_init: dict[str, int] = {}
        self.bounds: dict[str, tuple] = {}
        # Cards shown to players outside the zones they see: card -> a bit per seat. A card forgets
        # it when it moves or its zone is shuffled (see view.py).
        self.revealed: dict[int, int] = {}
        self.hand = 0  # in a game played in hands: the hand being played, from 1

    def next_random(self) -> int:
        """splitmix64: a 64-bit output, advancing the state held in `rng`."""
        self.rng = (self.rng + 0x9E3779B97F4A7C15) & MASK64
        z = self.rng
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection so that no value is favoured."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            r = self.next_random()
            if r < limit:
                return r % n

    def detach(self, card: int) -> str:
        """Take a card out of the zone or grid cell holding it (its `loc` is left for the caller to
        set); return where it was."""
        src = self.loc[card]
        if self.revealed:
            self.revealed.pop(card, None)
        if src in self.zones:
            held = self.zones[src]
            if held[-1] == card:  # the top card, most often: found without going through a long pile
                held.pop()
            else:
                held.remove(card)
            if not held and place(src).host is not None:  # an emptied slot of a card is forgotten
                del self.zones[src]
        else:
            cells = self.grids[src]
            for i, held in cells.items():
                if held == card:
                    del cells[i]
                    break
        return src

    def become(self, other: "GameState") -> None:
        """Be the game `other` is, taking over its containers: `other` must not be used after."""
        for name in GameState.__slots__:
            setattr(self, name, getattr(other, name))

    def clone(self) -> "GameState":
        """An independent copy (for search and what-if analysis), written for the state's shape.

        Containers the rules change are copied; what is never changed once made is shared: the
        pending decision and the result (replaced, not edited) and the values fixed at the start."""
        new = GameState.__new__(GameState)
        new.player_count, new.seed, new.rng, new.stage = self.player_count, self.seed, self.rng, self.stage
        new.round, new.phase_index, new.phase = self.round, self.phase_index, self.phase
        new.queue = list(self.queue)
        zones = {k: list(v) for k, v in self.zones.items()}
        new.zones = zones if type(self.zones) is dict else Zones(zones)
        new.loc = list(self.loc)
        new.card_def = list(self.card_def)
        new.counters = {k: copy_value(v) if type(v) in _NESTED else v for k, v in self.counters.items()}
        new.markers = dict(self.markers)
        new.tracks = {k: dict(v) for k, v in self.tracks.items()}
        new.grids = {k: dict(v) for k, v in self.grids.items()}
        new.stack = [Frame(f.proc, f.pc, {k: copy_value(v) if type(v) in _NESTED else v for k, v in f.env.items()},
                           f.active) for f in self.stack]
        new.pending = self.pending
        new.result = self.result
        new.seq, new.decisions, new.steps, new.total_steps = self.seq, self.decisions, self.steps, self.total_steps
        new.reached = {k: list(v) for k, v in self.reached.items()}
        new.zone_limits, new.keyed_init, new.bounds = self.zone_limits, self.keyed_init, self.bounds
        new.revealed = dict(self.revealed)
        new.hand = self.hand
        return new

    def to_json(self) -> dict:
        """The complete state as JSON-serialisable data."""
        return {
            "player_count": self.player_count, "seed": self.seed, "rng": self.rng, "stage": self.stage,
            "round": self.round, "phase": self.phase, "phase_index": self.phase_index,
            "queue": list(self.queue), "zones": {k: list(v) for k, v in self.zones.items()},
            "loc": list(self.loc), "card_def": list(self.card_def),
            "counters": copy.deepcopy(self.counters), "markers": dict(self.markers),
            "tracks": copy.deepcopy(self.tracks), "grids": copy.deepcopy(self.grids),
            "stack": [f.to_json() for f in self.stack], "pending": _pending_json(self.pending),
            "result": copy.deepcopy(self.result), "decisions": self.decisions,
            "total_steps": self.total_steps,
            "reached": copy.deepcopy(self.reached),
            "zone_limits": dict(self.zone_limits), "keyed_init": dict(self.keyed_init),
            "bounds": {k: list(v) for k, v in self.bounds.items()},
            "revealed": {str(k): v for k, v in sorted(self.revealed.items())},
            **({"hand": self.hand} if self.hand else {}),
        }
