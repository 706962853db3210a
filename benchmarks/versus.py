"""Random playouts side by side with the official digital engine: games per CPU-second of ours and of
Game Park's rules (bundled for Node 20, ../shared/bench/gamepark/bench.mjs), and their ratio, per
configuration (base 2p, 3p, 4p and Duel).

    python benchmarks/versus.py --gamepark ../shared/bench/gamepark/bench.mjs
    python benchmarks/versus.py --gamepark PATH --games 400 --rounds 4 --json
    python benchmarks/versus.py                       # without the official engine: our figures alone

Each configuration is played in `--rounds` alternating slices (ours, theirs, ours, ...) of
games/rounds games each, on fresh seeds, so that a drift of the machine's speed hits both sides.
CPU time is counted around the games only, on both sides: our ruleset loading and Node's start-up
are excluded. Both sides play random legal moves, but their games differ in length (our rulesets
ask each "may" of the rulebook as a decision; theirs chain some moves), so the decisions per game
and per CPU-second are printed too, and the ratio of those. The official engine crashes or gets
stuck in some base games: its figures count every game it played, finished or not (its `pct_finished`
says how many finished), as its README advises.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.engine import Engine  # noqa: E402
from interpreter.lab import games  # noqa: E402

CONFIGS = [("base", "rulesets/base.lf", 2), ("base", "rulesets/base.lf", 3), ("base", "rulesets/base.lf", 4),
           ("duel", "rulesets/duel.lf", 2)]


def ours(engine, players: int, seeds) -> dict:
    cpu = time.process_time()
    records = games.play_many(engine, players, "random", seeds, 1, tally=False)
    cpu = time.process_time() - cpu
    bad = [r for r in records if r["status"] != "finished"]
    if bad:
        raise SystemExit(f"seed {bad[0]['seed']}: the game did not end: {bad[0]['message']}")
    return {"games": len(records), "cpu_seconds": cpu, "decisions": sum(r["decisions"] for r in records),
            "finished": len(records)}


def theirs(node: str, bench: Path, game: str, players: int, count: int, seed0: int) -> dict:
    out = subprocess.run([node, str(bench), "--game", game, "--players", str(players), "--games", str(count),
                          "--seed0", str(seed0), "--json"], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return {"games": r["games"], "cpu_seconds": r["cpu_seconds"],
            "decisions": round(r["decisions_per_s"] * r["seconds"]),
            "finished": round(r["pct_finished"] * r["games"] / 100)}


def add(total: dict, part: dict) -> dict:
    return {k: total.get(k, 0) + v for k, v in part.items()}


def rates(t: dict) -> dict:
    return {"games": t["games"], "cpu_seconds": round(t["cpu_seconds"], 3),
            "games_per_cpu_s": round(t["games"] / t["cpu_seconds"], 2),
            "decisions_per_game": round(t["decisions"] / t["games"], 1),
            "decisions_per_cpu_s": round(t["decisions"] / t["cpu_seconds"]),
            "pct_finished": round(100 * t["finished"] / t["games"], 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gamepark", metavar="PATH", help="the official engine's bench.mjs (needs Node 20)")
    ap.add_argument("--games", type=int, default=200, help="games per configuration and side")
    ap.add_argument("--rounds", type=int, default=4, help="alternating slices the games are played in")
    ap.add_argument("--only", help="only these configurations, e.g. duel or base:3,duel")
    ap.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    args = ap.parse_args(argv)
    node = shutil.which("node")
    bench = Path(args.gamepark) if args.gamepark else None
    official = True
    if bench is None:
        print("no --gamepark given: our figures alone", file=sys.stderr)
        official = False
    elif not bench.is_file():
        print(f"no file at {bench}: our figures alone", file=sys.stderr)
        official = False
    elif node is None:
        print("Node.js is not installed (no `node` on the PATH): our figures alone", file=sys.stderr)
        official = False
    wanted = None if not args.only else {w.strip() for w in args.only.split(",")}
    configs = [c for c in CONFIGS if wanted is None or c[0] in wanted or f"{c[0]}:{c[2]}" in wanted]
    rows = []
    for game, ruleset, players in configs:
        engine = Engine.load(ROOT / ruleset)
        slice_ = max(1, args.games // args.rounds)
        a, b = {}, {}
        for r in range(args.rounds):
            seeds = range(r * slice_, (r + 1) * slice_)
            a = add(a, ours(engine, players, seeds))
            if official:
                b = add(b, theirs(node, bench, game, players, slice_, r * slice_))
        row = {"game": game, "players": players, "ours": rates(a)}
        if official:
            row["official"] = rates(b)
            row["ratio_games_per_cpu_s"] = round(row["ours"]["games_per_cpu_s"] / row["official"]["games_per_cpu_s"], 2)
            row["ratio_decisions_per_cpu_s"] = round(row["ours"]["decisions_per_cpu_s"]
                                                     / row["official"]["decisions_per_cpu_s"], 2)
        rows.append(row)
        if not args.json:
            show(row)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


def show(row: dict) -> None:
    o = row["ours"]
    print(f"{row['game']} {row['players']}p, {o['games']} games a side")
    print(f"  {'':10}{'games/CPU-s':>12}{'decisions/game':>16}{'decisions/CPU-s':>17}{'finished':>10}")
    sides = [("ours", o)] + ([("official", row["official"])] if "official" in row else [])
    for name, s in sides:
        print(f"  {name:10}{s['games_per_cpu_s']:>12.2f}{s['decisions_per_game']:>16.1f}"
              f"{s['decisions_per_cpu_s']:>17,}{s['pct_finished']:>9.1f}%")
    if "official" in row:
        print(f"  ratio     {row['ratio_games_per_cpu_s']:>11.2f}x{'':16}{row['ratio_decisions_per_cpu_s']:>16.2f}x")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
