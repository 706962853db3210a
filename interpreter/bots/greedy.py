"""The greedy bot: one move of lookahead on the evaluation (evaluation.py), a move being the run of
decisions its player makes before another player's turn (an action and the choices it asks for)."""
from __future__ import annotations

import random

from .evaluation import Evaluation
from .lookahead import after


class GreedyBot:
    """For each option: apply it to a copy of a determinization of the view, its random events drawn
    by a `Sampler` of the bot's own; while the bot's player is still the one to decide (at most
    `follow` more decisions), take the best next option by one-step lookahead (lookahead.py); score
    the result by the bot's utility. The option with the best score is chosen; equal scores are
    broken by the bot's own generator. Following the player's own next decisions lets an option
    whose worth shows only after its sub-choices (an action that then asks which card) be judged by
    its outcome. Every option meets the same random events (one seed for all)."""

    name = "greedy"
    uses_view = True
    bot = True  # takes a single option without its view (agents.decide)

    def __init__(self, engine, seat: int, seed: int, follow: int = 4, learned: int = 1, model=None):
        self.engine = engine
        self.seat = seat
        self.rng = random.Random(seed)
        self.follow = follow
        # `model`: a learned evaluation to use instead of the one kept beside the ruleset (training).
        self.evaluation = Evaluation(engine, learned, model)

    def choose(self, options: list, view):
        """The chosen option."""
        if len(options) == 1:
            return options[0]
        base = self.engine.determinize(view, self.rng)
        self.evaluation.anchor(base)
        luck = self.rng.getrandbits(64)
        scores = [after(self.engine, self.evaluation, base, o.index, self.seat, luck, self.follow) for o in options]
        best = max(scores)
        chosen = [o for o, s in zip(options, scores) if s >= best - 1e-12]
        return chosen[self.rng.randrange(len(chosen))]
