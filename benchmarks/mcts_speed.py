"""How fast the mcts bot decides at its default budget: CPU milliseconds per decision (median) and
decisions per CPU-second, on Duel and base 2p.

    python benchmarks/mcts_speed.py                      # 6 games a configuration, mcts against random
    python benchmarks/mcts_speed.py --games 10 --mcts mcts:iterations=100

Each game seats mcts against random (seats alternated, game g with seed g) and times every mcts
decision that had a choice (a decision with one option is not searched) by the process's CPU
clock. The games are the same for the same code, so two versions of the engine can be compared on
them; `--engine-root` runs them on another checkout of the project (e.g. a `git worktree` of an
older commit) from this one script.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

CONFIGS = [("rulesets/duel.lf", 2), ("rulesets/base.lf", 2)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6, help="games per configuration")
    ap.add_argument("--mcts", default="mcts", help="the mcts specification (default: its default settings)")
    ap.add_argument("--engine-root", help="the project checkout whose engine plays (default: this one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    root = Path(args.engine_root).resolve() if args.engine_root else Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root))
    from interpreter.agents import make_agents
    from interpreter.engine import Engine, LimitError

    rows = []
    for ruleset, players in CONFIGS:
        engine = Engine.load(root / ruleset)
        ms = []
        for g in range(args.games):
            seats = [args.mcts, "random"] if g % 2 == 0 else ["random", args.mcts]
            agents = make_agents(",".join(seats), players, g, engine=engine)
            st = engine.new_game(players, g)
            try:
                while not engine.is_over(st):
                    options = engine.options(st)
                    who = st.pending["player"]
                    agent = agents[who]
                    view = engine.view(st, who) if getattr(agent, "uses_view", False) else None
                    start = time.process_time()
                    option = agent.choose(options, view)
                    if getattr(agent, "name", "") == "mcts" and len(options) > 1:
                        ms.append((time.process_time() - start) * 1000)
                    engine.apply(st, option)
            except LimitError:
                pass
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
