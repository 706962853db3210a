"""How simulation scales with worker processes: games per second of `lfdsl simulate`'s runner
(`interpreter/lab/games.py`) with 1 worker and with N, on the same seeds, and the ratio. Run it
on an otherwise idle machine; the time includes starting the workers and loading the ruleset in
each, as a user's `lfdsl simulate --workers N` pays it.

    python benchmarks/workers.py                                   # Duel, greedy, 120 games, 1 vs 2
    python benchmarks/workers.py --ruleset rulesets/base.lf --games 60 --workers 2
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.engine import Engine  # noqa: E402
from interpreter.lab import figures, games  # noqa: E402


def timed(engine, players, agents, seeds, workers):
    start = time.perf_counter()
    records = games.play_many(engine, players, agents, seeds, workers)
    return time.perf_counter() - start, figures.summarize(records, players)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="rulesets/duel.lf")
    ap.add_argument("--players", type=int)
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--agents", default="greedy")
    ap.add_argument("--workers", type=int, default=2, help="the worker count compared with 1")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, the median quoted")
    args = ap.parse_args(argv)
    engine = Engine.load(ROOT / args.ruleset)
    players = args.players or engine.model.game.default_players
    seeds = range(1, args.games + 1)
    one, many = [], []
    for _ in range(args.repeat):  # alternated, so a drift of the machine's speed hits both
        s1, f1 = timed(engine, players, args.agents, seeds, 1)
        sn, fn = timed(engine, players, args.agents, seeds, args.workers)
        assert f1 == fn, "the figures differ between 1 and N workers"
        one.append(s1)
        many.append(sn)
    m1, mn = sorted(one)[len(one) // 2], sorted(many)[len(many) // 2]
    print(f"{args.ruleset} {players}p, {args.games} games, agents {args.agents}, median of {args.repeat} runs")
    print(f"  1 worker:  {m1:7.2f} s  {args.games / m1:7.2f} games/s")
    print(f"  {args.workers} workers: {mn:7.2f} s  {args.games / mn:7.2f} games/s")
    print(f"  speed-up {m1 / mn:.2f}x (figures identical)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
