"""Strength and speed of the bots: win rates of pairs of bots, mcts milliseconds per decision, and
game length with mcts in every seat.

    python benchmarks/bots.py                      # 100 games per pair (long: hours on one core)
    python benchmarks/bots.py --games 20 --jobs 2  # a reduced run on two processes
    python benchmarks/bots.py --only pairs         # or: rounds, solo
    python benchmarks/bots.py --only pairs --rulesets base   # the pairs of one ruleset
    python benchmarks/bots.py --only pairs --pairs mcts-greedy   # one pair
    python benchmarks/bots.py --only solo --games 50 --mcts mcts:iterations=100
    python benchmarks/bots.py --only solo --mcts greedy --solo tests/rulesets/solo/varans_left.lf
    python benchmarks/bots.py --only ladder --games 100 --jobs 2   # every bot against every other
    python benchmarks/bots.py --only ladder --ladder rulesets/duel.lf:2 --bots mcts,greedy,greedy:follow=1

Pairs: mcts (default settings) against random, greedy against random and mcts against greedy, on
Duel and base 2p, seats alternated, game g with seed g; win rates with Wilson 95% intervals (statsmodels,
interpreter/lab/figures.py). Speed: the median CPU milliseconds of an mcts decision that had a choice
(decisions with one option are not searched), timed inside the games of the mcts pairs. Rounds: the
median rounds of base games with 2, 3 and 4 players, with mcts in every seat and with random.
Ladder: per ruleset and player count (`--ladder`), every bot of `--bots` against every other, seats
alternated, the pairs' win rates with Wilson intervals and each bot's Bradley-Terry rating on the Elo
scale with its interval (interpreter/lab/tournament.py), the games shared among `--jobs` processes.
Solo: the win rate of mcts at difficulty 1, 3, 5, 7 and 9 (or `--levels`), with Wilson 95% intervals,
and the median rounds the games lasted, on rulesets/solo.lf or the layer `--solo` names. `--mcts` gives
the mcts specification used everywhere (default: `mcts`, its default settings).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.tools.agents import make_agents  # noqa: E402
from interpreter.engine import Engine, LimitError  # noqa: E402
from interpreter.lab.figures import interval  # noqa: E402
from interpreter.lab.tournament import ladder, median, ratings, seat_texts, table, tournament  # noqa: E402

PAIRS = [("mcts", "random"), ("greedy", "random"), ("mcts", "greedy")]
RULESETS = [("rulesets/duel.lf", 2), ("rulesets/base.lf", 2)]
LADDER = ("rulesets/base.lf:2,rulesets/base.lf:3,rulesets/base.lf:4,rulesets/kodama.lf:2,rulesets/duel.lf:2,"
          "rulesets/dartmoor.lf:3")
_engines: dict = {}


def _engine(ruleset: str, params=None) -> Engine:
    key = (ruleset, tuple(sorted((params or {}).items())))
    if key not in _engines:
        _engines[key] = Engine.load(ROOT / ruleset, params=params)
    return _engines[key]


def one_game(job) -> dict:
    """Play one game; return who won, the rounds and the milliseconds of each mcts decision."""
    ruleset, players, seats, seed = job[:4]
    engine = _engine(ruleset, job[4] if len(job) > 4 else None)
    agents = make_agents(",".join(seats), players, seed, engine=engine)
    st = engine.new_game(players, seed)
    ms = []
    try:
        while not engine.is_over(st):
            options = engine.options(st)
            who = engine.current_player(st)
            agent = agents[who]
            v = engine.view(st, who) if getattr(agent, "uses_view", False) else None
            start = time.process_time()
            option = agent.choose(options, v)
            if getattr(agent, "name", "") == "mcts" and len(options) > 1:
                ms.append((time.process_time() - start) * 1000)
            engine.apply(st, option)
    except LimitError:
        return {"winners": [], "rounds": st.round, "ms": ms, "unfinished": True}
    return {"winners": [int(w[1:]) - 1 for w in st.result["winners"]], "rounds": st.round, "ms": ms,
            "unfinished": False}


def run_pair(pool, ruleset, players, a, b, games):
    jobs = [(ruleset, players, seat_texts(a, b, players, g), g) for g in range(games)]
    a_score, ms, rounds = 0.0, [], []
    for g, out in enumerate(pool.map(one_game, jobs)):
        a_side = {s for s in range(players) if (s % 2 == 0) == (g % 2 == 0)}
        won = set(out["winners"])
        if won & a_side and not won - a_side:
            a_score += 1
        elif won & a_side or out["unfinished"] or not won:
            a_score += 0.5
        ms += out["ms"]
        rounds.append(out["rounds"])
    low, high = interval(a_score, games)
    return {"ruleset": ruleset, "players": players, "a": a, "b": b, "games": games, "a_score": a_score,
            "a_rate": round(a_score / games, 3), "interval95": [round(low, 3), round(high, 3)],
            "median_ms_per_mcts_decision": median_ms(ms), "median_rounds": median(rounds)}


def median_ms(ms: list):
    """The median of the milliseconds of mcts decisions, rounded; None when no mcts decided."""
    return round(median(ms), 1) if ms else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="games per pair and per configuration")
    ap.add_argument("--jobs", type=int, default=1, help="processes to play games on")
    ap.add_argument("--only", choices=["pairs", "rounds", "solo", "ladder"], help="only this part")
    ap.add_argument("--ladder", default=LADDER, help="RULESET:PLAYERS,... of the ladder part")
    ap.add_argument("--bots", default="mcts,greedy,random", help="the bots of the ladder part")
    ap.add_argument("--mcts", default="mcts", help="the mcts specification (default: its defaults)")
    ap.add_argument("--rulesets", default="duel,base", help="rulesets of the pairs part (duel, base or both)")
    ap.add_argument("--pairs", default="mcts-random,greedy-random,mcts-greedy",
                    help="the pairs of the pairs part, in the order to play them")
    ap.add_argument("--players", default="2,3,4", help="player counts of the rounds part")
    ap.add_argument("--levels", default="1,3,5,7,9", help="difficulty levels of the solo part")
    ap.add_argument("--solo", default="rulesets/solo.lf",
                    help="the ruleset of the solo part (a layer of solo.lf, say, with `difficulty`)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    rows = []
    with Pool(args.jobs) as pool:
        if args.only in (None, "pairs"):
            chosen = args.rulesets.split(",")
            for ruleset, players in RULESETS:
                if Path(ruleset).stem not in chosen:
                    continue
                for pair in args.pairs.split(","):
                    a, b = pair.split("-")
                    if (a, b) not in PAIRS:
                        ap.error(f"no pair {pair}; pairs: {', '.join('-'.join(p) for p in PAIRS)}")
                    a, b = (args.mcts if x == "mcts" else x for x in (a, b))
                    row = run_pair(pool, ruleset, players, a, b, args.games)
                    rows.append(row)
                    if not args.json:
                        lo, hi = row["interval95"]
                        print(f"{ruleset:<18} {players}p  {a:>6} vs {b:<6}  {row['a_rate']:6.1%}  "
                              f"[{lo:.1%}, {hi:.1%}]  mcts ms/decision {row['median_ms_per_mcts_decision']}  "
                              f"median rounds {row['median_rounds']}", flush=True)
        if args.only in (None, "rounds"):
            for players in (int(n) for n in args.players.split(",")):
                for spec in (args.mcts, "random"):
                    jobs = [("rulesets/base.lf", players, [spec] * players, g) for g in range(args.games)]
                    outs = pool.map(one_game, jobs)
                    row = {"ruleset": "rulesets/base.lf", "players": players, "agents": spec,
                           "games": args.games, "median_rounds": median([o["rounds"] for o in outs]),
                           "unfinished": sum(o["unfinished"] for o in outs),
                           "median_ms_per_mcts_decision": median_ms(sum((o["ms"] for o in outs), []))}
                    rows.append(row)
                    if not args.json:
                        print(f"rulesets/base.lf   {players}p  all {spec:<6}  median rounds {row['median_rounds']}  "
                              f"unfinished {row['unfinished']}  mcts ms/decision {row['median_ms_per_mcts_decision']}",
                              flush=True)
        if args.only in (None, "solo"):
            for level in (int(n) for n in args.levels.split(",")):
                jobs = [(args.solo, 1, [args.mcts], g, {"difficulty": str(level)}) for g in range(args.games)]
                outs = pool.map(one_game, jobs)
                wins = sum(bool(o["winners"]) for o in outs)
                low, high = interval(wins, args.games)
                row = {"ruleset": args.solo, "difficulty": level, "agents": args.mcts, "games": args.games,
                       "wins": wins, "win_rate": round(wins / args.games, 3), "interval95": [round(low, 3), round(high, 3)],
                       "median_rounds": median([o["rounds"] for o in outs]),
                       "unfinished": sum(o["unfinished"] for o in outs),
                       "median_ms_per_mcts_decision": median_ms(sum((o["ms"] for o in outs), []))}
                rows.append(row)
                if not args.json:
                    print(f"{args.solo}   difficulty {level}  {args.mcts}  won {wins}/{args.games}  "
                          f"{wins / args.games:.1%} [{low:.1%}, {high:.1%}]  median rounds {row['median_rounds']}  "
                          f"mcts ms/decision {row['median_ms_per_mcts_decision']}", flush=True)
    if args.only in (None, "ladder"):
        bots = [args.mcts if b == "mcts" else b for b in args.bots.split(",")]
        for item in args.ladder.split(","):
            ruleset, players = item.rsplit(":", 1)
            engine = _engine(ruleset)
            results = tournament(engine, bots, args.games, int(players), seed=0, workers=args.jobs)
            rates = ratings(bots, results)
            rows.append({"ruleset": ruleset, "players": int(players), "games_per_pair": args.games,
                         "pairs": [r.to_json() for r in results],
                         "ratings": [{"bot": r.bot, "elo": round(r.elo, 1), "interval95": [round(r.low, 1), round(r.high, 1)]}
                                     for r in rates]})
            if not args.json:
                print(f"== {ruleset} {players}p, {args.games} games per pair, seats alternated", flush=True)
                for line in table(results) + [""] + ladder(rates, bots[0]) + [""]:
                    print(line, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
