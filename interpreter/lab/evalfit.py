"""Checking a ruleset's evaluation (`lfdsl fit-eval`): does its `rank by` tell who is going to win,
and which of its named scores do?

Bots play games; every few decisions the position is kept, with every player's named scores and
`rank by` value from the ruleset's `evaluate` block (interpreter/bots/evaluation.py). When a game
ends its winners are known, and a logistic regression (statsmodels) fits "this player wins" on the
player's scores, each taken as its difference from the mean of the other players' (a player's own
value in a game of one). The regression's intervals are cluster-robust by game, since the
positions of one game are not independent of each other.

What it reports: the weight of each score with its 95% interval; how often the player ranked first
by `rank by` was a winner, and how often the player first by the fitted weights was (with more
than one player; with one, how often the sign of the fitted chance was right, for `rank by` alone
and for all the scores); McFadden's pseudo R-squared of both; and a `rank by` line with the fitted
weights as whole numbers, the largest 10. A score that never varies, or that is a sum of multiples
of the scores before it, cannot be weighed and is listed apart.

A weight says what predicted the winner in the games these bots played, not what a rule is worth:
bots that never pursue a goal give its score no weight. A score that matters only within a move
(what a card gives to spend this turn) may weigh little and still be what makes a bot play well.
"""
from __future__ import annotations

import warnings

import attrs
import numpy as np

from rulesdsl.errors import count_of

from ..tools.agents import decide, make_agents
from ..bots.evaluation import Evaluation
from ..engine import LimitError


class FitError(Exception):
    """The positions collected cannot be fitted (no finished game, no winner to tell apart...)."""


@attrs.frozen
class Weight:
    """One named score's fitted weight and its 95% interval."""

    name: str
    weight: float
    low: float
    high: float


@attrs.frozen
class EvalFit:
    """What `fit` found; see the module's description."""

    games: int
    finished: int
    players: int
    positions: int
    weights: tuple
    dropped: tuple  # (name, why)
    rank_hits: float  # share of positions where `rank by` picked a winner (or, alone, was right)
    fitted_hits: float
    chance: float  # the share a guess gets: winners per game over players, or the larger class
    rank_r2: float
    fitted_r2: float
    suggestion: str | None

    def to_json(self) -> dict:
        """The result as JSON data."""
        return {"games": self.games, "finished": self.finished, "players": self.players,
                "positions": self.positions,
                "weights": [{"score": w.name, "weight": round(w.weight, 5),
                             "interval95": [round(w.low, 5), round(w.high, 5)]} for w in self.weights],
                "dropped": [{"score": n, "why": why} for n, why in self.dropped],
                "rank_by_hits": round(self.rank_hits, 4), "fitted_hits": round(self.fitted_hits, 4),
                "chance": round(self.chance, 4), "rank_by_pseudo_r2": round(self.rank_r2, 4),
                "fitted_pseudo_r2": round(self.fitted_r2, 4), "suggested_rank_by": self.suggestion,
                "interval": "95%, cluster-robust by game (statsmodels Logit)"}


def collect(engine, agents: str, players: int, games: int, seed: int = 1, every: int = 3, each=None):
    """Play `games` games (game g with seed `seed + g`) with `agents` and keep every `every`-th
    position: a list of (game, [(scores, rank) per player], winners) and the number of games that
    finished (a game stopped by a limit has no winner and gives no position). `each()` is called
    after every game."""
    ev = Evaluation(engine)
    rows, finished = [], 0
    for g in range(games):
        seated = make_agents(agents, players, seed + g, engine=engine)
        st = engine.new_game(players, seed + g)
        kept, count = [], 0
        try:
            while not engine.is_over(st):
                if count % every == 0:
                    evaluate = engine.evaluator(st)
                    kept.append([ev.scores(st, p, evaluate) for p in range(players)])
                engine.apply(st, decide(engine, st, seated[engine.current_player(st)]))
                count += 1
        except LimitError:
            if each is not None:
                each()
            continue
        finished += 1
        if each is not None:
            each()
        winners = {int(w[1:]) - 1 for w in st.result["winners"]}
        rows.extend((g, position, winners) for position in kept)
    return rows, finished


def fit(names: list[str], rows, players: int, games: int, finished: int) -> EvalFit:
    """Fit the winner on the named scores of the positions `rows` (from `collect`)."""
    import statsmodels.api as sm
    from statsmodels.tools import sm_exceptions

    # What statsmodels raises or warns when the scores separate winners from losers exactly (the
    # error is deprecated in favour of the warning: take whichever this version has).
    separation = tuple(getattr(sm_exceptions, n) for n in ("PerfectSeparationError", "PerfectSeparationWarning")
                       if hasattr(sm_exceptions, n))

    if not rows:
        raise FitError("no game finished, so there is no winner to fit: play more games or other agents")
    x, rank, y, groups = [], [], [], []
    for g, position, winners in rows:
        values = np.array([[s[n] for n in names] for s, _ in position], dtype=float)
        ranks = np.array([r for _, r in position], dtype=float)
        for p in range(players):
            if players == 1:
                x.append(values[p])
                rank.append(ranks[p])
            else:
                others = [q for q in range(players) if q != p]
                x.append(values[p] - values[others].mean(axis=0))
                rank.append(ranks[p] - ranks[others].mean())
            y.append(1.0 if p in winners else 0.0)
            groups.append(g)
    x, rank, y, groups = np.array(x), np.array(rank), np.array(y), np.array(groups)
    if y.min() == y.max():
        raise FitError("every player " + ("won" if y[0] else "lost") + " at every position kept: "
                       "there is nothing to tell apart; play more games or other agents")
    # Scores that cannot be weighed: constant, or a combination of the ones before them.
    kept, dropped = [], []
    for i, n in enumerate(names):
        if np.ptp(x[:, i]) == 0:
            dropped.append((n, "never varies"))
            continue
        trial = kept + [i]
        if np.linalg.matrix_rank(np.column_stack([np.ones(len(y))] + [x[:, j] for j in trial])) <= len(kept) + 1:
            dropped.append((n, "a sum of multiples of the scores before it"))
            continue
        kept.append(i)
    if not kept:
        raise FitError("no score varies: there is nothing to weigh")

    if len(set(groups.tolist())) < 2:
        raise FitError(f"the positions kept come from {count_of(finished, 'finished game')}: the intervals are by "
                       "game and need positions of at least 2; play more games or other agents")

    def logit(columns):
        design = sm.add_constant(columns, has_constant="add")
        if len(y) <= design.shape[1]:  # no degree of freedom left for the interval
            raise FitError(f"{count_of(len(rows), 'position')} kept, too few to weigh "
                           f"{count_of(design.shape[1] - 1, 'score')}: play more games or keep positions more "
                           "often (--every)")
        with warnings.catch_warnings():
            for kind in separation:
                if issubclass(kind, Warning):
                    warnings.simplefilter("error", kind)
            warnings.simplefilter("ignore", sm_exceptions.ConvergenceWarning)
            try:
                return sm.Logit(y, design).fit(disp=0, maxiter=200, cov_type="cluster",
                                               cov_kwds={"groups": groups}), design
            except separation:
                raise FitError("the scores tell winners from losers perfectly at every position kept: "
                               "play more games (or keep positions earlier in the game, --every)") from None
            except np.linalg.LinAlgError:
                raise FitError("the scores cannot be fitted (their values are too alike): play more games") from None

    full, design = logit(x[:, kept])
    alone, rank_design = logit(rank.reshape(-1, 1))
    ci = full.conf_int(0.05)
    weights = tuple(Weight(names[i], float(full.params[k + 1]), float(ci[k + 1][0]), float(ci[k + 1][1]))
                    for k, i in enumerate(kept))
    fitted = design @ full.params
    if players == 1:
        chance = float(max(y.mean(), 1 - y.mean()))
        rank_hits = float(np.mean((rank_design @ alone.params > 0) == (y == 1)))
        fitted_hits = float(np.mean((fitted > 0) == (y == 1)))
    else:
        chance = float(y.mean())
        rank_hits = _top_hits(rank, y, players)
        fitted_hits = _top_hits(fitted, y, players)
    return EvalFit(games, finished, players, len(rows), weights, tuple(dropped), rank_hits, fitted_hits, chance,
                   float(alone.prsquared), float(full.prsquared), suggestion(weights))


def _top_hits(values, won, players: int) -> float:
    """The share of positions whose best value belongs to a winner (ties share the credit)."""
    values, won = values.reshape(-1, players), won.reshape(-1, players)
    best = values.max(axis=1, keepdims=True)
    top = np.isclose(values, best)
    return float(np.mean((top * won).sum(axis=1) / top.sum(axis=1)))


def suggestion(weights) -> str | None:
    """A `rank by` line from the weights: whole numbers, the largest 10; None if all round to 0."""
    if not weights:
        return None
    scale = 10 / max(abs(w.weight) for w in weights)
    terms = [(round(w.weight * scale), w.name) for w in weights]
    text = ""
    for k, name in terms:
        if k == 0:
            continue
        term = name if abs(k) == 1 else f"{abs(k)} * {name}"
        text += (f" - {term}" if k < 0 else f" + {term}") if text else (f"-{term}" if k < 0 else term)
    return f"rank by {text}" if text else None


def table(result: EvalFit) -> list[str]:
    """The result as readable lines."""
    width = max([len(w.name) for w in result.weights] + [5])
    out = [f"{'score':<{width}}  {'weight':>9}  {'95% interval':>21}",
           "-" * (width + 34)]
    for w in result.weights:
        mark = "" if w.low > 0 or w.high < 0 else "   (interval holds 0)"
        out.append(f"{w.name:<{width}}  {w.weight:9.4f}  [{w.low:9.4f}, {w.high:9.4f}]{mark}")
    for name, why in result.dropped:
        out.append(f"{name:<{width}}  not weighed: {why}")
    out.append("")
    if result.players == 1:
        what = "right about the game's outcome"
    else:
        what = "ranks a winner first"
    ruleset_rank = "the ruleset's `rank by`"
    out.append(f"{ruleset_rank:<24} {what} at {result.rank_hits:6.1%} of positions, "
               f"pseudo R2 {result.rank_r2:.3f}")
    out.append(f"{'the fitted weights':<24} {what} at {result.fitted_hits:6.1%} of positions, "
               f"pseudo R2 {result.fitted_r2:.3f}")
    out.append(f"{'a guess':<24} {what} at {result.chance:6.1%}")
    if result.suggestion:
        out.append("")
        out.append("the fitted weights as a rank by line (whole numbers, the largest 10):")
        out.append("    " + result.suggestion)
    return out
