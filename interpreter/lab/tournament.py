"""Tournaments between agents: every pair over N games, seats alternated, win rates with intervals,
and a ladder: a Bradley-Terry rating of every bot on the Elo scale.

The interval is Wilson's score interval at 95%, computed by statsmodels (`proportions.interval`). A
shared win counts half to each side; a game that reaches one of the ruleset's limits (rounds,
decisions) counts as unfinished and half to each side as well, and is reported.
"""
from __future__ import annotations

import math
import statistics
import warnings

import attrs

from ..tools.agents import make_agents, play
from ..engine import LimitError
from .proportions import interval


@attrs.frozen
class PairResult:
    """The games of bot `a` against bot `b`: `a`'s wins, `b`'s, shared, unfinished, and rounds."""

    a: str
    b: str
    games: int
    a_wins: int
    b_wins: int
    shared: int
    unfinished: int
    rounds: tuple

    def rate(self) -> float:
        """`a`'s win rate against `b`, a shared or unfinished game counting half."""
        return (self.a_wins + 0.5 * (self.shared + self.unfinished)) / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of `rate`."""
        return tuple(interval(self.a_wins + 0.5 * (self.shared + self.unfinished), self.games))

    def to_json(self) -> dict:
        """The result as JSON data, the rate and interval included."""
        low, high = self.interval()
        return {"a": self.a, "b": self.b, "games": self.games, "a_wins": self.a_wins, "b_wins": self.b_wins,
                "shared": self.shared, "unfinished": self.unfinished, "a_rate": round(self.rate(), 4),
                "interval95": [round(low, 4), round(high, 4)], "interval": "Wilson score, 95% (statsmodels)",
                "median_rounds": median(self.rounds)}


def median(values) -> float | None:
    """The median of a list of numbers, None for an empty one."""
    return float(statistics.median(values)) if values else None


def seat_texts(a: str, b: str, players: int, game: int) -> list[str]:
    """Who sits where in game number `game`: `a` and `b` alternate around the table, and trade
    places from one game to the next."""
    first, second = (a, b) if game % 2 == 0 else (b, a)
    return [first if s % 2 == 0 else second for s in range(players)]


def play_game(engine, a: str, b: str, players: int, seed: int, g: int, option: str = "--bots") -> tuple:
    """Game number `g` of `a` against `b` (seed `seed + g`): (a won, b won, unfinished, rounds)."""
    seats = seat_texts(a, b, players, g)
    agents = make_agents(",".join(seats), players, seed + g, engine=engine, option=option)
    st = engine.new_game(players, seed + g)
    try:
        play(engine, st, agents)
    except LimitError:
        return False, False, True, st.round
    winners = {int(w[1:]) - 1 for w in st.result["winners"]}
    # Seats of even number hold `a` in even games and `b` in odd ones (seat_texts).
    a_won = any((s % 2 == 0) == (g % 2 == 0) for s in winners)
    b_won = any((s % 2 == 0) != (g % 2 == 0) for s in winners)
    return a_won, b_won, False, st.round


def pair_result(a: str, b: str, outcomes: list) -> PairResult:
    """The pair's result from its games' outcomes (`play_game`), in game order."""
    a_wins = b_wins = shared = unfinished = 0
    for a_won, b_won, stopped, _ in outcomes:
        if stopped:
            unfinished += 1
        elif a_won and not b_won:
            a_wins += 1
        elif b_won and not a_won:
            b_wins += 1
        else:
            shared += 1  # both won, or nobody did (a solo loss cannot happen with two sides): half each
    return PairResult(a, b, len(outcomes), a_wins, b_wins, shared, unfinished, tuple(o[3] for o in outcomes))


def play_pair(engine, a: str, b: str, games: int, players: int = 2, seed: int = 0,
              option: str = "--bots", progress=None) -> PairResult:
    """Play `games` games of agent spec `a` against `b` (game g with seed `seed + g`)."""
    outcomes = []
    for g in range(games):
        outcomes.append(play_game(engine, a, b, players, seed, g, option))
        if progress is not None:
            progress(a, b, g + 1, games)
    return pair_result(a, b, outcomes)


_worker: dict = {}


def _start_worker(engine, players, seed):
    _worker.update(engine=engine, players=players, seed=seed)


def _game_in_worker(job: tuple) -> tuple:
    pair, a, b, g = job
    return pair, g, play_game(_worker["engine"], a, b, _worker["players"], _worker["seed"], g)


def tournament(engine, bots: list[str], games: int, players: int = 2, seed: int = 0,
               progress=None, workers: int = 1) -> list[PairResult]:
    """Every pair of `bots` (agent specs as text), `games` games each; with `workers` above 1 the
    games are shared among that many processes (each game is decided by its seed, so the results do
    not depend on how many). `progress()` is called after every game."""
    pairs = [(bots[i], bots[j]) for i in range(len(bots)) for j in range(i + 1, len(bots))]
    jobs = [(k, a, b, g) for k, (a, b) in enumerate(pairs) for g in range(games)]
    outcomes: dict = {}
    if workers <= 1 or len(jobs) <= 1:
        for k, a, b, g in jobs:
            outcomes[(k, g)] = play_game(engine, a, b, players, seed, g)
            if progress is not None:
                progress()
    else:
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")  # no fork of a process that may run a display thread
        with ctx.Pool(min(workers, len(jobs)), _start_worker, (engine, players, seed)) as pool:
            for k, g, outcome in pool.imap_unordered(_game_in_worker, jobs):
                outcomes[(k, g)] = outcome
                if progress is not None:
                    progress()
    return [pair_result(a, b, [outcomes[(k, g)] for g in range(games)]) for k, (a, b) in enumerate(pairs)]


@attrs.frozen
class Rating:
    """A bot's strength on the Elo scale, the first bot at 0, with its 95% interval."""

    bot: str
    elo: float
    low: float
    high: float


ELO = 400 / math.log(10)  # a Bradley-Terry strength in Elo points: 200 more, about 76% of the games
PRIOR = 0.5  # games added to each side of every pair, so that a pair won 20-0 has a finite rating


def ratings(bots: list[str], results: list[PairResult]) -> list[Rating]:
    """A Bradley-Terry rating of every bot from the pairs' results, fitted as a binomial GLM
    (statsmodels): the chance that `a` beats `b` is the logistic function of strength(a) -
    strength(b). A shared or unfinished game counts half to each side; PRIOR games are added to
    each side of every pair. The first bot is the reference (0); intervals are the fit's 95% Wald
    intervals, relative to it."""
    import numpy as np
    import statsmodels.api as sm
    index = {b: i for i, b in enumerate(bots)}
    rows, wins, losses = [], [], []
    for r in results:
        x = np.zeros(len(bots) - 1)
        if index[r.a]:
            x[index[r.a] - 1] += 1.0
        if index[r.b]:
            x[index[r.b] - 1] -= 1.0
        won = r.a_wins + 0.5 * (r.shared + r.unfinished)
        rows.append(x)
        wins.append(won + PRIOR)
        losses.append(r.games - won + PRIOR)
    with warnings.catch_warnings():
        # A design with as many pairs as strengths leaves no residual degree of freedom, and a pair
        # won by one side nearly always looks separated: both warnings say nothing of the fit here.
        warnings.simplefilter("ignore")
        fitted = sm.GLM(np.column_stack([wins, losses]), np.array(rows), family=sm.families.Binomial()).fit()
    low, high = fitted.conf_int(0.05).T
    out = [Rating(bots[0], 0.0, 0.0, 0.0)]
    for i, bot in enumerate(bots[1:]):
        out.append(Rating(bot, ELO * float(fitted.params[i]), ELO * float(low[i]), ELO * float(high[i])))
    return sorted(out, key=lambda r: -r.elo)


def ladder(rates: list[Rating], reference: str) -> list[str]:
    """The ratings as the lines of a readable table, strongest first; `reference` is the bot at 0."""
    width = max([len(r.bot) for r in rates] + [3])
    out = [f"{'rank':>4}  {'bot':<{width}}  {'rating':>7}  {'95% interval':>17}"]
    for n, r in enumerate(rates, 1):
        shown = "reference" if r.bot == reference else f"[{r.low:+.0f}, {r.high:+.0f}]"
        out.append(f"{n:>4}  {r.bot:<{width}}  {r.elo:>+7.0f}  {shown:>17}")
    out.append(f"rating: Bradley-Terry on the Elo scale (+200: about 76% of the games), fitted by statsmodels "
               f"with {PRIOR:g} game added to each side of every pair; `{reference}` at 0")
    return out


def table(results: list[PairResult]) -> list[str]:
    """The results as the lines of a readable table, one line per pair, from its first bot's side."""
    width = max([len(r.a) for r in results] + [len(r.b) for r in results] + [3])
    head = f"{'bot':<{width}}  {'against':<{width}}  {'games':>5}  {'wins':>5}  {'losses':>6}  {'shared':>6}  " \
           f"{'unfin.':>6}  {'win rate':>8}  {'95% interval':>15}  {'med. rounds':>11}"
    out = [head, "-" * len(head)]
    for r in results:
        lo, hi = r.interval()
        out.append(f"{r.a:<{width}}  {r.b:<{width}}  {r.games:>5}  {r.a_wins:>5}  {r.b_wins:>6}  {r.shared:>6}  "
                   f"{r.unfinished:>6}  {r.rate():>8.1%}  {f'[{lo:.1%}, {hi:.1%}]':>15}  "
                   f"{median(r.rounds) if r.rounds else '-':>11}")
    out.append("win rate: wins plus half the shared and unfinished games; interval: Wilson score, 95%")
    return out
