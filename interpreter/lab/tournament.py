"""Tournaments between agents: every pair over N games, seats alternated, win rates with intervals.

The interval is Wilson's score interval at 95%, computed by statsmodels (`figures.interval`). A
shared win counts half to each side; a game that reaches one of the ruleset's limits (rounds,
decisions) counts as unfinished and half to each side as well, and is reported.
"""
from __future__ import annotations

import statistics

import attrs

from ..tools.agents import make_agents, play
from ..engine import LimitError
from .figures import interval


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


def play_pair(engine, a: str, b: str, games: int, players: int = 2, seed: int = 0,
              option: str = "--bots", progress=None) -> PairResult:
    """Play `games` games of agent spec `a` against `b` (game g with seed `seed + g`)."""
    a_wins = b_wins = shared = unfinished = 0
    rounds = []
    for g in range(games):
        seats = seat_texts(a, b, players, g)
        agents = make_agents(",".join(seats), players, seed + g, engine=engine, option=option)
        st = engine.new_game(players, seed + g)
        try:
            play(engine, st, agents)
        except LimitError:
            unfinished += 1
            rounds.append(st.round)
            if progress is not None:
                progress(a, b, g + 1, games)
            continue
        rounds.append(st.round)
        winners = {int(w[1:]) - 1 for w in st.result["winners"]}
        # Seats of even number hold `a` in even games and `b` in odd ones (seat_texts).
        a_won = any((s % 2 == 0) == (g % 2 == 0) for s in winners)
        b_won = any((s % 2 == 0) != (g % 2 == 0) for s in winners)
        if a_won and b_won:
            shared += 1
        elif a_won:
            a_wins += 1
        elif b_won:
            b_wins += 1
        else:
            shared += 1  # nobody won (a solo loss cannot happen with two sides): half each
        if progress is not None:
            progress(a, b, g + 1, games)
    return PairResult(a, b, games, a_wins, b_wins, shared, unfinished, tuple(rounds))


def tournament(engine, bots: list[str], games: int, players: int = 2, seed: int = 0,
               progress=None) -> list[PairResult]:
    """Every pair of `bots` (agent specs as text), `games` games each."""
    return [play_pair(engine, bots[i], bots[j], games, players, seed, progress=progress)
            for i in range(len(bots)) for j in range(i + 1, len(bots))]


def table(results: list[PairResult]) -> list[str]:
    """The results as the lines of a readable table."""
    width = max([len(r.a) for r in results] + [len(r.b) for r in results] + [3])
    head = f"{'bot':<{width}}  {'against':<{width}}  {'games':>5}  {'wins':>5}  {'losses':>6}  {'shared':>6}  " \
           f"{'unfin.':>6}  {'win rate':>8}  {'95% interval':>15}  {'med. rounds':>11}"
    out = [head, "-" * len(head)]
    for r in results:
        for me, other, wins, losses, rate, (lo, hi) in (
                (r.a, r.b, r.a_wins, r.b_wins, r.rate(), r.interval()),
                (r.b, r.a, r.b_wins, r.a_wins, 1 - r.rate(), tuple(1 - x for x in reversed(r.interval())))):
            out.append(f"{me:<{width}}  {other:<{width}}  {r.games:>5}  {wins:>5}  {losses:>6}  {r.shared:>6}  "
                       f"{r.unfinished:>6}  {rate:>8.1%}  {f'[{lo:.1%}, {hi:.1%}]':>15}  "
                       f"{median(r.rounds) if r.rounds else '-':>11}")
    out.append("win rate: wins plus half the shared and unfinished games; interval: Wilson score, 95%")
    return out
