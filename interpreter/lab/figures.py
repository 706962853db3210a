"""The figures of a simulation, from its games' records: games finished, stopped by a limit or by
an error, lost with a cluster's workers (and their seeds), each seat's win rate with its 95%
interval, ties, the length of games in rounds and decisions, how games ended, and how often each
named option and each card was offered, chosen and bought.

The interval is Wilson's score interval, computed by statsmodels (`proportion_confint`, method
"wilson"); the percentiles are numpy's (linear interpolation).
"""
from __future__ import annotations

import numpy as np

from .proportions import INTERVAL, interval
from .quality import curves, game_quality

__all__ = ["INTERVAL", "interval", "spread", "summarize", "seed_ranges", "unfinished"]


def spread(values) -> dict:
    """Mean, median, 10th and 90th percentiles (None for no values)."""
    if not values:
        return {"mean": None, "median": None, "p10": None, "p90": None}
    a = np.asarray(values, dtype=float)
    p10, median, p90 = np.percentile(a, [10, 50, 90])
    return {"mean": round(float(a.mean()), 3), "median": round(float(median), 3), "p10": round(float(p10), 3),
            "p90": round(float(p90), 3)}


def summarize(records: list[dict], players: int) -> dict:
    """Every figure of a simulation, as JSON data (with how the game plays: lab/quality.py)."""
    done = [r for r in records if r["status"] == "finished"]
    seats = []
    for seat in range(players):
        wins = sum(seat in r["winners"] for r in done)
        seats.append({"seat": f"P{seat + 1}", "wins": wins,
                      "win_rate": round(wins / len(done), 4) if done else None,
                      "ci95": [round(x, 4) for x in interval(wins, len(done))]})
    reasons: dict[str, int] = {}
    for r in done:
        key = r["reason"] or "(no reason given)"
        reasons[key] = reasons.get(key, 0) + 1
    return {
        "games": len(records),
        "finished": len(done),
        "stopped_by_limit": sum(r["status"] == "limit" for r in records),
        "errors": sum(r["status"] == "error" for r in records),
        "lost": sum(r["status"] == "lost" for r in records),
        "failed_seeds": [{"seed": r["seed"], "status": r["status"], "message": r["message"]}
                         for r in records if r["status"] != "finished"],
        "seats": seats,
        "ties": sum(len(r["winners"]) > 1 for r in done),
        "no_winner": sum(not r["winners"] for r in done),
        "rounds": spread([r["rounds"] for r in done]),
        "decisions": spread([r["decisions"] for r in done]),
        "end_reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        "options": _merged(records, "options", ("offered", "chosen")),
        "cards": _merged(records, "cards", ("offered", "chosen", "bought")),
        "quality": game_quality(records, players),
        "curves": curves(records, players),
        "interval": INTERVAL,
    }


def _merged(records, key, names) -> dict:
    total: dict[str, list] = {}
    for r in records:
        for label, counts in r[key].items():
            row = total.setdefault(label, [0] * len(names))
            for i, c in enumerate(counts):
                row[i] += c
    out = {}
    for label in sorted(total):
        row = dict(zip(names, total[label]))
        row["chosen_when_offered"] = round(row["chosen"] / row["offered"], 4) if row["offered"] else None
        out[label] = row
    return out


def seed_ranges(seeds) -> str:
    """Seeds as runs of consecutive numbers: `3, 7-12, 20`."""
    out, run = [], []
    for s in sorted(seeds):
        if run and s != run[-1] + 1:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
            run = []
        run.append(s)
    if run:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ", ".join(out)


def unfinished(failed_seeds: list[dict]) -> list[tuple[str, str, str]]:
    """The games that did not finish as rows (seeds, status, message): one per game stopped by a
    limit or an error, one per reason for the games lost with a cluster, their seeds as runs."""
    rows = [(str(f["seed"]), f["status"], f["message"] or "") for f in failed_seeds if f["status"] != "lost"]
    lost: dict[str, list[int]] = {}
    for f in failed_seeds:
        if f["status"] == "lost":
            lost.setdefault(f["message"] or "", []).append(f["seed"])
    return rows + [(seed_ranges(seeds), "lost", why) for why, seeds in sorted(lost.items())]
