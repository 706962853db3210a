"""Random-agent playouts: complete games per second and decisions per second, per configuration.
A thin wrapper over the lab's game runner (`interpreter/lab/games.py`, what `lfdsl simulate` plays
with), without its counts of options, so that only the engine and the agents are timed.

    python benchmarks/playouts.py                          # table, 200 games per configuration
    python benchmarks/playouts.py --games 1000             # the full thousand per configuration
    python benchmarks/playouts.py --ruleset rulesets/base.lf --players 3 --set goal=10
    python benchmarks/playouts.py --workers 2              # games shared among two processes
    python benchmarks/playouts.py --json                   # a JSON list of result objects

A progress bar shows each configuration's games (on a terminal). Every game must end with a
result (winners, or a solo loss); an error or a game stopped by a limit stops the run (exit 1)
with its seed. For balance figures rather than speed, use `lfdsl simulate` (docs/simulation.md).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from interpreter.engine import Engine  # noqa: E402
from rulesdsl.errors import LanguageError  # noqa: E402
from interpreter.lab import games, show  # noqa: E402

CONFIGS = [("rulesets/base.lf", 2), ("rulesets/base.lf", 3), ("rulesets/base.lf", 4), ("rulesets/duel.lf", 2),
           ("rulesets/kodama.lf", 2), ("rulesets/kodama.lf", 3), ("rulesets/kodama.lf", 4), ("rulesets/solo.lf", 1),
           ("rulesets/dartmoor.lf", 2), ("rulesets/dartmoor.lf", 3), ("rulesets/dartmoor.lf", 4),
           ("rulesets/dartmoor.lf", 5)]


def measure(ruleset: str, players: int, count: int, params: dict, workers: int, console) -> dict:
    engine = Engine.load(ROOT / ruleset, params=params)
    start = time.perf_counter()
    with show.progress(console) as bar:
        task = bar.add_task(f"{ruleset} {players}p", total=count)
        records = games.play_many(engine, players, "random", range(count), workers,
                                  each=lambda _r: bar.advance(task), tally=False)
    seconds = time.perf_counter() - start
    for r in records:
        if r["status"] != "finished":
            raise SystemExit(f"{ruleset} {players}p seed {r['seed']}: the game did not end: {r['message']}")
    decisions = sum(r["decisions"] for r in records)
    return {"ruleset": ruleset, "players": players, "games": count, "workers": workers,
            "seconds": round(seconds, 3), "games_per_s": round(count / seconds, 2),
            "decisions_per_s": round(decisions / seconds, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per configuration (seeds 0..N-1)")
    ap.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    ap.add_argument("--ruleset", help="only this ruleset (any .lf file, e.g. a variant)")
    ap.add_argument("--players", type=int, help="with --ruleset: only this player count")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a ruleset parameter")
    ap.add_argument("--workers", type=int, default=1, help="processes to play on (default 1)")
    args = ap.parse_args(argv)
    params = dict(p.split("=", 1) for p in args.set)
    configs = [(r, p) for r, p in CONFIGS if (not args.ruleset or r == args.ruleset)
               and (not args.players or p == args.players)]
    if args.ruleset and not configs:
        try:
            players = args.players or Engine.load(ROOT / args.ruleset, params=params).model.game.default_players
        except LanguageError as exc:
            print(exc.render(), file=sys.stderr)
            return 2
        configs = [(args.ruleset, players)]
    err = Console(stderr=True)
    try:
        rows = [measure(r, p, args.games, params, args.workers, err) for r, p in configs]
    except LanguageError as exc:  # a ruleset or a --set that cannot be used
        print(exc.render(), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'ruleset':<22}{'players':>8}{'games':>7}{'workers':>8}{'seconds':>9}{'games/s':>9}{'decisions/s':>13}")
        for r in rows:
            print(f"{r['ruleset']:<22}{r['players']:>8}{r['games']:>7}{r['workers']:>8}{r['seconds']:>9.2f}"
                  f"{r['games_per_s']:>9.1f}{r['decisions_per_s']:>13.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
