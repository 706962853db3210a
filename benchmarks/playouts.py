"""Random-agent playouts: complete games per second and decisions per second, per configuration.

    python benchmarks/playouts.py                 # table, 200 games per configuration
    python benchmarks/playouts.py --games 1000    # the full thousand per configuration
    python benchmarks/playouts.py --json          # a JSON list of result objects

Every game must end with a result (winners, or a solo loss); an error or a game without a result
stops the run (exit 1).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.agents import make_agents, play  # noqa: E402
from interpreter.engine import Engine  # noqa: E402

CONFIGS = [("rulesets/base.lf", 2), ("rulesets/base.lf", 3), ("rulesets/base.lf", 4), ("rulesets/duel.lf", 2),
           ("rulesets/kodama.lf", 2), ("rulesets/kodama.lf", 3), ("rulesets/kodama.lf", 4), ("rulesets/solo.lf", 1)]


def measure(ruleset: str, players: int, games: int) -> dict:
    engine = Engine.load(ROOT / ruleset)
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        st = engine.new_game(players, seed)
        play(engine, st, make_agents("random", players, seed))
        # Every game must end: with winners, or (solo) with the player's loss.
        if not st.result or not (st.result["winners"] or st.result.get("loser")):
            raise SystemExit(f"{ruleset} {players}p seed {seed}: the game has no result")
        decisions += st.decisions
    seconds = time.perf_counter() - start
    return {"ruleset": ruleset, "players": players, "games": games, "seconds": round(seconds, 3),
            "games_per_s": round(games / seconds, 2), "decisions_per_s": round(decisions / seconds, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per configuration (seeds 0..N-1)")
    ap.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    ap.add_argument("--ruleset", help="only this ruleset (any .lf file, e.g. a variant)")
    ap.add_argument("--players", type=int, help="with --ruleset: only this player count")
    args = ap.parse_args(argv)
    configs = [(r, p) for r, p in CONFIGS if (not args.ruleset or r == args.ruleset)
               and (not args.players or p == args.players)]
    if args.ruleset and not configs:
        players = args.players or Engine.load(ROOT / args.ruleset).model.game.default_players
        configs = [(args.ruleset, players)]
    rows = [measure(r, p, args.games) for r, p in configs]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'ruleset':<22}{'players':>8}{'games':>7}{'seconds':>9}{'games/s':>9}{'decisions/s':>13}")
        for r in rows:
            print(f"{r['ruleset']:<22}{r['players']:>8}{r['games']:>7}{r['seconds']:>9.2f}"
                  f"{r['games_per_s']:>9.1f}{r['decisions_per_s']:>13.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
