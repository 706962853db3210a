"""The greedy bot: one move of lookahead on the evaluation (evaluation.py)."""
from __future__ import annotations

import random

from ..chance import Sampler
from ..engine import GameError
from .evaluation import Evaluation


class GreedyBot:
    """For each option: apply it to a copy of a determinization of the view, its random events drawn
    by a `Sampler` of the bot's own, and take the option whose result has the best utility for the
    bot's player; equal utilities are broken by the bot's own generator."""

    name = "greedy"
    uses_view = True

    def __init__(self, engine, seat: int, seed: int):
        self.engine = engine
        self.seat = seat
        self.rng = random.Random(seed)
        self.evaluation = Evaluation(engine)

    def choose(self, options: list, view):
        """The chosen option."""
        if len(options) == 1:
            return options[0]
        engine = self.engine
        base = engine.determinize(view, self.rng)
        best, chosen = None, []
        for option in options:
            st = engine.clone(base)
            try:
                engine.apply(st, option.index, chance=Sampler(self.rng.getrandbits(64)))
                value = self.evaluation.utilities(st)[self.seat]
            except GameError:
                value = -1.0  # an option after which the rules fail is the worst one
            if best is None or value > best + 1e-12:
                best, chosen = value, [option]
            elif abs(value - best) <= 1e-12:
                chosen.append(option)
        return chosen[self.rng.randrange(len(chosen))]
