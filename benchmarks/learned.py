"""The bots on a learned evaluation alone: each ruleset as if it had no `evaluate` block.

For each RULESET:PLAYERS, in a copy of the project in a temporary folder (the model is kept beside
the ruleset, and the repository is left as it is): `lfdsl train` (its own games and seeds), then,
with the bots told to use the learned evaluation in place of the ruleset's block (`learned=2`), the
pairs greedy against random and mcts against greedy, seats alternated, win rates with Wilson 95%
intervals (interpreter/lab/tournament.py). The issue's bar: greedy >= 90% against random, mcts >= 55%
against greedy.

    python benchmarks/learned.py --configs rulesets/duel.lf:2 --train-games 40 --games 100 --jobs 2
    python benchmarks/learned.py            # every shipped ruleset (long: hours on one core)
    python benchmarks/learned.py --configs rulesets/base.lf:2 --pairs greedy-random   # greedy only
    python benchmarks/learned.py --configs examples/sixnimmt/sixnimmt.lf:4 --pairs greedy-random
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.bots import learned  # noqa: E402
from interpreter.engine import Engine  # noqa: E402
from interpreter.lab.train import train  # noqa: E402
from interpreter.lab.tournament import tournament  # noqa: E402

CONFIGS = ("rulesets/duel.lf:2,rulesets/base.lf:2,rulesets/base.lf:3,rulesets/base.lf:4,rulesets/kodama.lf:2,"
           "rulesets/dartmoor.lf:3")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=CONFIGS, help="RULESET:PLAYERS,...")
    ap.add_argument("--train-games", type=int, default=100, help="games per training iteration")
    ap.add_argument("--iterations", type=int, default=3, help="training iterations")
    ap.add_argument("--every", type=int, default=2, help="training keeps a position every N decisions")
    ap.add_argument("--games", type=int, default=100, help="games per pair")
    ap.add_argument("--mcts", default="mcts", help="the mcts specification")
    ap.add_argument("--jobs", type=int, default=1, help="processes to play the pairs on")
    ap.add_argument("--pairs", default="greedy-random,mcts-greedy", help="the pairs to play, in order")
    ap.add_argument("--json", action="store_true", help="print JSON instead of lines")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        for name in ("rulesets", "cards", "examples", "lfdsl.toml"):
            source = ROOT / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, project / name)
        for item in args.configs.split(","):
            ruleset, players = item.rsplit(":", 1)
            players = int(players)
            engine = Engine.load(project / ruleset)
            began = time.process_time()
            model, report = train(engine, players, args.train_games, args.iterations, seed=1,
                                  bots="greedy:learned=2", every=args.every)
            learned.save(model, learned.model_path(engine, players))
            trained_in = time.process_time() - began
            greedy, mcts = "greedy:learned=2", f"{args.mcts}{',' if ':' in args.mcts else ':'}learned=2"
            pairs = []
            named = {"greedy": greedy, "mcts": mcts, "random": "random"}
            for pair in args.pairs.split(","):
                a, b = (named[x] for x in pair.split("-"))
                (result,) = tournament(engine, [a, b], args.games, players, seed=1000, workers=args.jobs)
                low, high = result.interval()
                pairs.append({"a": a, "b": b, "games": result.games, "a_rate": round(result.rate(), 3),
                              "interval95": [round(low, 3), round(high, 3)], "unfinished": result.unfinished})
                if not args.json:
                    print(f"{ruleset} {players}p  {a} vs {b}: {result.rate():.1%} [{low:.1%}, {high:.1%}] "
                          f"over {result.games} games", flush=True)
            rows.append({"ruleset": ruleset, "players": players, "entries": len(model.labels),
                         "train": {"games": args.train_games, "iterations": args.iterations,
                                   "cpu_seconds": round(trained_in, 1), "ridge": model.trained["ridge"],
                                   "hits": [it.hits for it in report]},
                         "pairs": pairs})
            if not args.json:
                hits = ", ".join("-" if h is None else f"{h:.1%}" for h in (it.hits for it in report))
                print(f"{ruleset} {players}p  trained on {args.iterations} x {args.train_games} games in "
                      f"{trained_in:.0f} s CPU, {len(model.labels)} entries, penalty {model.trained['ridge']:g}; "
                      f"winner ranked first: {hits}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
