"""Training a ruleset's learned evaluation (`lfdsl train`): self-play, then a fit, a few times over.

Each iteration plays `games` games with the bots (greedy by default), every seat using the model of
the iteration before (the first iteration: the ruleset's own evaluation, the victory thresholds when
it has no `evaluate` block; never a model kept from an earlier training). Every `every` decisions the position is kept, once per player, as that
player sees it (bots/features.py), at most KEPT_PER_GAME of a game, spread evenly over it (the bots
of a later iteration may play longer games, which would otherwise outweigh the others and fill the
memory); when the game ends each kept position is labelled with its
player's result (1 for a win, 0 for a loss). The model is then fitted on the positions of every
iteration so far (bots/learned.py), with the penalty whose fit on the other games predicts one game
in four (`HELD_OUT`) best. A game stopped by a limit has no result and gives no position.

Before each fit, the model of the iteration before is scored on the new games' positions, which it
has not seen: how often the player it ranks first is a winner (`hits`; with one player, how often
its prediction is on the right side of one half). That is the number to watch: it should rise over
the iterations and beat the first iteration's evaluation.

Everything is drawn from the seed: game g of iteration i has seed `seed + i * games + g`, the bots'
generators follow from it, and the fit is a closed form, so the same command writes the same file.
"""
from __future__ import annotations

import attrs
import numpy as np

from ..bots import BOTS, make_bot, parse_agents
from ..bots.features import FeatureLayout
from ..bots.learned import LearnedModel, choose_ridge, fit, model_key
from ..engine import LimitError
from ..tools.agents import AGENTS, decide

MAX_CELLS = 40_000_000  # positions times entries kept for the fit: 320 MB of numbers
HELD_OUT = 4  # one game in this many is held out to choose the fit's penalty (then fitted on too)
KEPT_PER_GAME = 40  # the most positions a game gives: a long game adds as much as a short one


class TrainError(Exception):
    """Training that cannot go on: nothing to learn from, or more positions than memory allows."""


@attrs.frozen
class Iteration:
    """What one iteration played and how well the model before it predicted its games."""

    number: int
    games: int
    finished: int
    positions: int
    hits: float | None  # the model before on these games' positions (None in the first iteration)


def train(engine, players: int, games: int, iterations: int = 3, seed: int = 1, bots: str = "greedy",
          every: int = 2, ridge: float | None = None, each=None) -> tuple[LearnedModel, list[Iteration]]:
    """The learned evaluation of `engine` at `players` and what each iteration did; `each()` is
    called after every game."""
    layout = FeatureLayout(engine, players)
    key = model_key(engine, players, layout)
    specs = parse_agents(bots, "--bots")
    if len(specs) == 1:
        specs = specs * players
    X: list = []
    y: list = []
    held: list = []  # per row: whether it is of a game the penalty is chosen on (HELD_OUT)
    model = None
    report = []
    for it in range(iterations):
        rows, results, games_of, finished = [], [], [], 0
        for g in range(games):
            game_seed = seed + it * games + g
            learning = {"model": model, "learned": 2} if model is not None else {"learned": 0}
            agents = [make_bot(attrs.evolve(s, params={**s.params, **learning}), engine, seat, game_seed)
                      if s.name in BOTS else AGENTS[s.name](game_seed, seat) for seat, s in enumerate(specs)]
            kept = collect(engine, players, game_seed, agents, layout, every)
            if each is not None:
                each()
            if kept is None:
                continue
            positions, returns = kept
            finished += 1
            for entries in positions:
                rows.append(entries)
                results.append(returns)
                games_of.append(g)
            if (len(X) + len(rows) * players) * layout.size > MAX_CELLS:
                raise TrainError(f"{len(X) + len(rows) * players:,} positions of {layout.size:,} entries are more "
                                 "than memory allows: keep a position less often (--every) or play fewer games")
        seen = hits(model, rows, results, players) if rows and model is not None else None
        for entries, returns, g in zip(rows, results, games_of):
            for p in range(players):
                X.append(entries[p])
                y.append(returns[p])
                held.append(g % HELD_OUT == HELD_OUT - 1)
        if X:
            Xa, ya = np.array(X), np.array(y, dtype=np.float64)
            penalty = ridge if ridge is not None else choose_ridge(Xa, ya, np.array(held))[0]
            mean, scale, weights, bias = fit(Xa, ya, penalty)
            trained = {"games": games * (it + 1), "iterations": it + 1, "seed": seed, "bots": bots,
                       "every": every, "positions": len(X), "ridge": penalty}
            model = LearnedModel(key, players, layout.labels, mean, scale, weights, bias, trained)
        report.append(Iteration(it + 1, games, finished, len(rows) * players, seen))
    if model is None:
        raise TrainError("no game ended with a decision taken: nothing to learn from")
    return model, report


def collect(engine, players: int, seed: int, agents: list, layout: FeatureLayout, every: int):
    """Play one game; its kept positions (per position, every player's entries; at most
    `KEPT_PER_GAME`, spread evenly over the game) and the players' results, or None when a limit
    stopped it."""
    st = engine.new_game(players, seed)
    positions, count = [], 0
    try:
        while not engine.is_over(st):
            if count % every == 0:
                positions.append([layout.encode(engine.sight(st, p)) for p in range(players)])
            engine.apply(st, decide(engine, st, agents[engine.current_player(st)]))
            count += 1
    except LimitError:
        return None
    if len(positions) > KEPT_PER_GAME:  # evenly spread from the first to the last
        positions = [positions[i * len(positions) // KEPT_PER_GAME] for i in range(KEPT_PER_GAME)]
    return positions, engine.returns(st)


def hits(model, rows, results, players: int) -> float:
    """How often the player `model` ranks first won (the first of equal ones); with one player, how
    often its prediction was on the right side of one half."""
    hit = 0
    for entries, returns in zip(rows, results):
        predicted = [model.standing(e) for e in entries]
        if players == 1:
            hit += (predicted[0] >= 0.5) == (returns[0] >= 0.5)
        else:
            best = max(range(players), key=predicted.__getitem__)
            hit += returns[best] > 0
    return hit / len(rows)
