"""How fast the mcts bot decides at its default budget: CPU milliseconds per decision (median) and
decisions per CPU-second, on Duel and base 2p.

    python benchmarks/mcts_speed.py                      # 6 games a configuration, mcts against random
    python benchmarks/mcts_speed.py --games 10 --mcts mcts:iterations=100

Each game seats mcts against random (seats alternated, game g with seed g) and times every mcts
decision that had a choice (a decision with one option is not searched) by the process's CPU
clock, with the game loop of `bots.py`. The games are the same for the same rules, so two versions
of the engine can be compared on them: run this script in a `git worktree` of the older commit too.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys

from bots import one_game, seat_texts

CONFIGS = [("rulesets/duel.lf", 2), ("rulesets/base.lf", 2)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6, help="games per configuration")
    ap.add_argument("--mcts", default="mcts", help="the mcts specification (default: its default settings)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for ruleset, players in CONFIGS:
        ms = []
        for g in range(args.games):
            ms += one_game((ruleset, players, seat_texts(args.mcts, "random", players, g), g))["ms"]
        row = {"ruleset": ruleset, "players": players, "games": args.games, "mcts": args.mcts, "decisions": len(ms),
               "median_ms": round(statistics.median(ms), 1), "decisions_per_cpu_s": round(len(ms) / sum(ms) * 1000, 2)}
        rows.append(row)
        if not args.json:
            print(f"{ruleset} {players}p, {args.games} games, {args.mcts}: {len(ms)} decisions searched, "
                  f"median {row['median_ms']} ms, {row['decisions_per_cpu_s']} decisions per CPU-second", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
