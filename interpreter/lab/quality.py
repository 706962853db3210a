"""How a game plays, from its games' records (lab/games.py), beyond who wins: the game-quality
measures of docs/simulation.md ("How the game plays"), each with its 95% interval.

The per-round measures read each game's *curve*: every seat's standing as the bots judge it
(bots/evaluation.py: the ruleset's `evaluate` block, its learned evaluation, or its victory
thresholds) at the start of every round, and at the end. A round's *leader* is the one seat with
the highest standing (none when several share it).

* first-player advantage: the first seat's win rate minus 1/players (none in a game of one);
* drawishness: the share of finished games with a shared win or, with several players, no winner;
* stalls: the share of games stopped by a limit;
* lead changes: per game, how often the leader differs from the round before's (rounds without a
  leader are passed over);
* decisiveness: per game with one winner who leads at the end, the round in which that winner
  took the lead it kept to the end, and the share of the game played before it;
* drama: per game with one winner, the share of the rounds the winner did not lead;
* duration and branching factor per phase: decisions per game, and options per decision.

Shares have Wilson's interval (statsmodels); means have Student's t interval (scipy), which is
exact for normal data and close for these averages of many games.
"""
from __future__ import annotations

import math

from .proportions import interval

SOURCES = {
    "first_player_advantage": "the first seat's win rate over the fair share (CardStock's fairness; Ludii's metrics)",
    "drawishness": "games with no single winner (Ludii's metrics: drawishness)",
    "stalls": "games stopped by a limit (Ludii's metrics: timeouts)",
    "lead_changes": "Browne (2008), Automatic Generation and Evaluation of Recombination Games: lead change",
    "decisiveness": "Browne (2008): decisiveness, the point from which the winner's lead holds",
    "drama": "Browne (2008) and CardStock: drama, how long the winner was behind",
    "phases": "Ludii's metrics: duration and branching factor",
}


def mean_interval(values: list[float]) -> dict:
    """The mean of `values` with its 95% Student t interval (None for no value; the mean alone
    for one)."""
    n = len(values)
    if n == 0:
        return {"mean": None, "ci95": None, "n": 0}
    m = sum(values) / n
    if n == 1:
        return {"mean": round(m, 4), "ci95": None, "n": 1}
    from scipy.stats import t
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    half = float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return {"mean": round(m, 4), "ci95": [round(m - half, 4), round(m + half, 4)], "n": n}


def _share(hits: int, total: int) -> dict:
    return {"share": round(hits / total, 4) if total else None, "ci95": [round(x, 4) for x in interval(hits, total)],
            "n": total}


def leader(standings) -> int | None:
    """The one seat with the highest standing, or None when several share it (or no standing)."""
    if not standings:
        return None
    best = max(standings)
    top = [i for i, s in enumerate(standings) if s == best]
    return top[0] if len(top) == 1 else None


def lead_changes(points: list) -> int:
    """How often the leader differs from the last round's that had one."""
    changes, last = 0, None
    for p in points:
        who = leader(p)
        if who is None:
            continue
        if last is not None and who != last:
            changes += 1
        last = who
    return changes


def decided_at(points: list, winner: int) -> int | None:
    """The index of the first point from which `winner` is the leader at every point to the last
    (None when it does not lead at the last)."""
    at = None
    for i, p in enumerate(points):
        if leader(p) == winner:
            if at is None:
                at = i
        else:
            at = None
    return at


def game_quality(records: list[dict], players: int) -> dict:
    """Every measure of the module's description, as JSON data."""
    played = [r for r in records if r["status"] != "lost"]
    done = [r for r in played if r["status"] == "finished"]
    first = sum(0 in r["winners"] for r in done)
    advantage = None
    if done and players > 1:  # a game of one has no first player to favour
        low, high = interval(first, len(done))
        advantage = {"value": round(first / len(done) - 1 / players, 4),
                     "ci95": [round(low - 1 / players, 4), round(high - 1 / players, 4)], "n": len(done)}
    changes, decided, decided_share, drama = [], [], [], []
    for r in done:
        points = [p for p in r.get("curve", []) if p is not None]
        final = r.get("final")
        path = points + ([final] if final is not None else [])
        if len(path) < 2:
            continue
        changes.append(lead_changes(path))
        if len(r["winners"]) != 1:
            continue
        w = r["winners"][0]
        at = decided_at(path, w)
        if at is not None:
            # Point `at` is the start of round at + 1 (the last, the end): the lead that held from
            # there on was taken during round `at` (a lead from the very start: round 1).
            decided.append(max(at, 1))
            decided_share.append(at / (len(path) - 1))
        drama.append(sum(leader(p) != w for p in points) / len(points) if points else 0.0)
    phases: dict[str, list] = {}
    for r in done:
        for name, (decisions, options) in r.get("phases", {}).items():
            row = phases.setdefault(name, [[], 0, 0])
            row[0].append(decisions)
            row[1] += decisions
            row[2] += options
    per_phase = {name: {"decisions_per_game": mean_interval([float(x) for x in row[0]]),
                        "branching": round(row[2] / row[1], 3) if row[1] else None}
                 for name, row in phases.items()}
    return {
        "first_player_advantage": advantage,
        # A shared win, or no winner among several players (a game of one without a winner is lost).
        "drawishness": _share(sum(len(r["winners"]) > 1 or (not r["winners"] and players > 1) for r in done),
                              len(done)),
        "stalls": _share(sum(r["status"] == "limit" for r in played), len(played)),
        "lead_changes": mean_interval([float(c) for c in changes]),
        "decisiveness": {"round": mean_interval([float(d) for d in decided]),
                         "share_of_game": mean_interval(decided_share)},
        "drama": mean_interval(drama),
        "phases": per_phase,
        "sources": SOURCES,
    }


def curves(records: list[dict], players: int, most: int = 200) -> list[dict]:
    """Per round from the first (at most `most`), every seat's standing at its start over the
    finished games that reached it: games, mean, 10th and 90th percentiles."""
    import numpy as np
    done = [r for r in records if r["status"] == "finished"]
    out = []
    for t in range(most):
        at = [r["curve"][t] for r in done if t < len(r.get("curve", [])) and r["curve"][t] is not None]
        if not at:
            break
        a = np.asarray(at, dtype=float)
        p10, p90 = np.percentile(a, [10, 90], axis=0)
        out.append({"round": t + 1, "games": len(at), "mean": [round(float(x), 3) for x in a.mean(axis=0)],
                    "p10": [round(float(x), 3) for x in p10], "p90": [round(float(x), 3) for x in p90]})
    return out


def skill_spread(engine, players: int, games: int, seed: int = 1, workers: int = 1, progress=None,
                 bots: tuple = ("greedy", "random")) -> dict:
    """How much a stronger player wins over a weaker one: every pair of `bots` (strongest first,
    e.g. mcts, greedy, random) over `games` games, seats alternated (lab/tournament.py); the spread
    is the first bot's win rate against the last (shared games half each) minus 1/2, with Wilson's
    interval shifted alike, and every pair's rate is kept. About 0 for a game of luck."""
    from .tournament import tournament
    results = tournament(engine, list(bots), games, players, seed, progress=progress, workers=workers)

    def row(r):
        low, high = r.interval()
        return {"strong": r.a, "weak": r.b, "games": r.games, "rate": round(r.rate(), 4),
                "value": round(r.rate() - 0.5, 4), "ci95": [round(low - 0.5, 4), round(high - 0.5, 4)]}
    pairs = [row(r) for r in results]
    main = next(p for p in pairs if p["strong"] == bots[0] and p["weak"] == bots[-1])
    return {**main, "pairs": pairs, "source": "CardStock's spread; the ladder of bots (docs/agents.md)"}
