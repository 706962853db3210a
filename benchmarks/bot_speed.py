"""The bots' cost, this tree against another (an older commit checked out with `git worktree`), in
one run on one machine: CPU seconds of `lfdsl simulate` with the default bot on base 3p and Duel,
as games per CPU-second, and mcts milliseconds per decision (benchmarks/mcts_speed.py) on Duel and
base 2p.

    git worktree add /tmp/before 0ca9eef
    python benchmarks/bot_speed.py --before /tmp/before                # 3 rounds of each
    python benchmarks/bot_speed.py --before /tmp/before --base-games 6 --duel-games 20 --rounds 5

Each measure runs as a child process of the tree it measures (its own code, its own cache folder),
the two trees in turn (A B A B ...), so that a machine whose speed drifts during the run slows both
alike; the CPU time is the children's user plus system time. The games are the same seeds in both
trees: with the same choices, the ratio is the cost of the same work. The median of the rounds is
quoted, with the ratio of the medians.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def simulate(tree: Path, ruleset: str, players: int, games: int, cache: str) -> float:
    """CPU seconds of `lfdsl simulate` (the default bot, one worker) in `tree`."""
    before = child_cpu()
    env = dict(os.environ, PYTHONPATH=str(tree), XDG_CACHE_HOME=cache)
    subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "simulate", ruleset, "--players", str(players),
                    "--games", str(games), "--workers", "1", "--seed", "1"],
                   cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return child_cpu() - before


def mcts_ms(tree: Path, games: int, cache: str) -> dict:
    """mcts_speed.py's median milliseconds per decision, by ruleset, in `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree), XDG_CACHE_HOME=cache)
    out = subprocess.run([sys.executable, "mcts_speed.py", "--games", str(games), "--json"], cwd=tree / "benchmarks",
                         env=env, check=True, capture_output=True, text=True).stdout
    return {f"{r['ruleset']} {r['players']}p": r["median_ms"] for r in json.loads(out)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="the other tree (a worktree of an older commit)")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each measure in each tree")
    ap.add_argument("--base-games", type=int, default=6, help="games of base 3p per run")
    ap.add_argument("--duel-games", type=int, default=20, help="games of Duel per run")
    ap.add_argument("--mcts-games", type=int, default=2, help="games per ruleset of mcts_speed.py per run (0: none)")
    args = ap.parse_args(argv)
    trees = {"after": ROOT, "before": Path(args.before).resolve()}
    if not (trees["before"] / "interpreter").is_dir():
        print(f"bot_speed.py: {args.before} is not a tree of this project", file=sys.stderr)
        return 2
    sims = [("rulesets/base.lf", 3, args.base_games), ("rulesets/duel.lf", 2, args.duel_games)]
    cpu = {(name, r): [] for name in trees for r, _, _ in sims}
    ms: dict = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as caches:
        for k in range(args.rounds):
            for name, tree in trees.items():
                cache = str(Path(caches) / name)
                for ruleset, players, games in sims:
                    cpu[(name, ruleset)].append(simulate(tree, ruleset, players, games, cache))
                if args.mcts_games:
                    ms[name].append(mcts_ms(tree, args.mcts_games, cache))
            print(f"round {k + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    print(f"{'measure':<44} {'before':>10} {'after':>10} {'after/before':>13}")
    for ruleset, players, games in sims:
        b, a = (games / statistics.median(cpu[(n, ruleset)]) for n in ("before", "after"))
        print(f"{f'simulate {ruleset} {players}p, games per CPU-s':<44} {b:>10.3f} {a:>10.3f} {a / b:>12.2f}x")
    if args.mcts_games:
        for key in ms["after"][0]:
            b, a = (statistics.median(m[key] for m in ms[n]) for n in ("before", "after"))
            print(f"{f'mcts {key}, ms per decision':<44} {b:>10.1f} {a:>10.1f} {a / b:>12.2f}x")
    print(f"medians of {args.rounds} runs in each tree, in turn; simulate: the default bot, one worker, seeds from 1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
