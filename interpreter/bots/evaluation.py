"""How good a game state is for each player, for the bots: the ruleset's `evaluate` block, or a
default read from its victory block.

A *standing* is a number per player, higher is better. With an `evaluate for p { ... rank by E }`
block it is the integer E. Without one, the ruleset's learned evaluation (learned.py, written by
`lfdsl train`) when one is kept for the player count and was trained on these rules: the result it
predicts for the player from what the player sees. Without either it is derived from the victory: each `win if A >= B` (or
`A > B`) line gives a progress `min(A / B, 1)`; the standing is 0.6 times the best progress plus 0.4
times the mean one (the player wins on any line, so the nearest threshold weighs most, and the
others still count). A ruleset with neither has every standing 0: only finished games score.

A *utility* is what a bot maximises, in [0, 1]: 1 for a winner and 0 for a loser once the game is
over; before that 0.5 plus 0.4 times the player's lead over the best other player, the lead divided
by the larger of the two standings (1 at least) so that any scale of evaluation works. A single
player has no rival to lead: their standing is measured against an *anchor*, the standing of the
position the bot is deciding from (`anchor`), the same way, so that what a decision changes shows
at the same scale as in a game of several players; without an anchor, 0.1 plus 0.8 times the
standing divided by (1 + |standing|).
"""
from __future__ import annotations

from ..engine import Unwatchable


class Evaluation:
    """A program's evaluation: `standings(state)` and `utilities(state)`, one number per seat."""

    def __init__(self, engine, learned: int = 1, model=None):
        """`learned`: 0 never uses a learned evaluation, 1 uses it when the ruleset has no
        `evaluate` block, 2 uses it instead of the block (without a model: the victory thresholds);
        `model` is the model to use (a `LearnedModel`), else the one kept beside the ruleset."""
        self.engine = engine
        self.declared = engine.evaluation if learned != 2 else None
        self.block = engine.evaluation_block if self.declared is not None else None
        self.learned = bool(learned) and self.declared is None
        self.given = model
        self._models: dict = {}  # player count -> (model, feature layout), or None
        self.thresholds = engine.victory_thresholds
        victory = engine.model.victory
        self.victory_var = victory.var if victory is not None else None
        self.victory_scores = engine.victory_scores
        self.reference = None  # the anchor of a single player's utilities (see `anchor`)
        # Per seat, the standing at the anchor and what it read of the state (`Reads`): used again
        # on a state with the same values there. None: nothing kept.
        self.kept: list | None = None
        self.watching = True  # False once an evaluation read what cannot be watched

    def anchor(self, st) -> None:
        """Measure a single player's utilities from now on against their standing in `st`, and keep
        every seat's standing in `st` with what it read: a position reached from `st` that holds
        the same values there has the same standing (the bots score many positions that differ
        from their anchor in the places of the player who moved only)."""
        self.kept = self._keep(st)
        if st.player_count != 1:
            self.reference = None
        else:
            self.reference = self.kept[0][1] if self.kept is not None else self.standing(st, 0)

    def _keep(self, st) -> list | None:
        """Every seat's standing in `st` and what it read, or None when a standing is not read from
        the state by the rules (a learned one) or reads what cannot be watched."""
        if not self.watching or (self.declared is None and self.model(st.player_count) is not None):
            return None
        kept = []
        try:
            for p in range(st.player_count):
                evaluate, reads = self.engine.watched_evaluator(st)
                kept.append((reads, self.standing(st, p, evaluate)))
        except Unwatchable:
            self.watching = False
            return None
        return kept

    def scores(self, st, p: int, evaluate=None) -> tuple[dict, int]:
        """Player `p`'s named scores in `st` and the `rank by` value, from the ruleset's `evaluate`
        block (which the caller has checked exists)."""
        env, value = self._declared(st, p, evaluate or self.engine.evaluator(st))
        return {name: env[name] for name, _ in self.declared[1]}, value

    def _declared(self, st, p: int, evaluate) -> tuple[dict, int]:
        """The `evaluate` block's scores as an environment (the player's variable included) and
        its `rank by` value."""
        env = {self.declared[0]: p}
        return env, evaluate(self.block, env)

    def standing(self, st, p: int, evaluate=None) -> float:
        """Player `p`'s standing in `st` (`evaluate`: an `engine.evaluator(st)` to share)."""
        evaluate = evaluate or self.engine.evaluator(st)
        if self.declared is not None:
            return float(self._declared(st, p, evaluate)[1])
        if self.learned:
            fitted = self.model(st.player_count)
            if fitted is not None:
                model, layout = fitted
                return model.standing(layout.encode(self.engine.sight(st, p)))
        if not self.thresholds:
            return 0.0
        env = {self.victory_var: p}
        for name, f in self.victory_scores:
            env[name] = evaluate(f, env)
        progress = []
        for left, right in self.thresholds:
            have, need = evaluate(left, env), evaluate(right, env)
            progress.append(1.0 if need <= 0 else max(0.0, min(1.0, have / need)))
        return 0.6 * max(progress) + 0.4 * sum(progress) / len(progress)

    def model(self, players: int):
        """The learned model used at `players` and its feature layout, or None."""
        if players not in self._models:
            model = None
            if not self.learned:
                pass
            elif self.given is not None:
                model = self.given if self.given.players == players else None
            else:
                try:  # numpy comes with the lab's extra; without it there is no learned model
                    from .learned import find
                except ImportError:
                    find = None
                if find is not None:
                    model, _ = find(self.engine, players)
            if model is not None:
                from .features import FeatureLayout
                self._models[players] = (model, FeatureLayout(self.engine, players))
            else:
                self._models[players] = None
        return self._models[players]

    def standings(self, st) -> list[float]:
        """Every seat's standing: the one kept at the anchor where it still holds (`anchor`)."""
        kept, evaluate, out = self.kept, None, []
        for p in range(st.player_count):
            if kept is not None and p < len(kept) and kept[p][0].holds(st):
                out.append(kept[p][1])
                continue
            if evaluate is None:
                evaluate = self.engine.evaluator(st)
            out.append(self.standing(st, p, evaluate))
        return out

    def utilities(self, st) -> list[float]:
        """Every seat's utility in [0, 1] (see the module's description)."""
        if st.result is not None:
            return self.engine.returns(st)
        s = self.standings(st)
        n = len(s)
        if n == 1:
            if self.reference is None:
                return [0.1 + 0.8 * max(0.0, s[0]) / (1.0 + abs(s[0]))]
            return [min(0.9, max(0.1, self._lead(s[0], self.reference)))]
        return [self._lead(s[p], max(s[q] for q in range(n) if q != p)) for p in range(n)]

    def _lead(self, mine: float, other: float) -> float:
        """0.5 plus 0.4 times the lead of `mine` over `other`, on the scale of the larger of the
        two when the ruleset declares its evaluation (1 at least)."""
        scale = max(1.0, abs(mine), abs(other)) if self.declared is not None else 1.0
        # A learned standing is a predicted result, mostly within [0, 1]: kept within it.
        return min(1.0, max(0.0, 0.5 + 0.4 * (mine - other) / scale))
