"""Cost of cloning a game state against the cost of one decision (`apply`), on mid-game states.

    .venv/bin/python benchmarks/clone.py [--ruleset rulesets/base.lf] [--players 3] [--states 200]
"""
from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    from interpreter.tools.agents import make_agents
    from interpreter.engine import Engine
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default=str(ROOT / "rulesets" / "base.lf"))
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--states", type=int, default=200, help="mid-game states measured (one per seed)")
    args = ap.parse_args()
    engine = Engine.load(args.ruleset)
    states, apply_s, decisions = [], 0.0, 0
    for seed in range(args.states):
        st = engine.new_game(args.players, seed)
        agents = make_agents("random", args.players, seed)
        t = time.process_time()
        for _ in range(60):
            if engine.is_over(st):
                break
            engine.apply(st, agents[engine.current_player(st)].choose(engine.options(st), st))
            decisions += 1
        apply_s += time.process_time() - t
        states.append(st)
    rounds = 20
    t = time.process_time()
    for _ in range(rounds):
        for st in states:
            st.clone()
    clone_s = (time.process_time() - t) / (rounds * len(states))
    t = time.process_time()
    for st in states:
        copy.deepcopy(st)
    deep_s = (time.process_time() - t) / len(states)
    print(json.dumps({"ruleset": args.ruleset, "players": args.players, "states": len(states),
                      "apply_us": round(apply_s / decisions * 1e6, 1),
                      "clone_us": round(clone_s * 1e6, 1), "deepcopy_us": round(deep_s * 1e6, 1)}, indent=2))


if __name__ == "__main__":
    main()
