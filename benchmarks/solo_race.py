"""How many rounds a bot takes to win a game of one player: by default solo with neither fire nor
clock (tests/rulesets/solo/race.lf, issue 28 point 5), where the game is a pure race to the flowers
of the solo goal and the rounds a game lasts measure how well a bot builds a deck that races.

    python benchmarks/solo_race.py                                  # greedy, seeds 1 to 20
    python benchmarks/solo_race.py --agents mcts --games 10
    python benchmarks/solo_race.py rulesets/solo.lf --set difficulty=1 --cap 60

Game g (g = 0, 1, ...) has seed `--seed + g`. A game still running when round `--cap` is over
is stopped there. Prints one line per game (the rounds it lasted, how it ended, the CPU seconds)
and then the median, the quartiles and the range of the rounds to win, over every game: a game lost
or stopped counts as `--cap + 1`, not won within the cap.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.engine import Engine, LimitError  # noqa: E402
from interpreter.tools.commands import _params  # noqa: E402  (`--set` as lfdsl reads it, errors positioned)
from rulesdsl.errors import LanguageError  # noqa: E402
from interpreter.tools.agents import make_agents, play  # noqa: E402

RACE = "tests/rulesets/solo/race.lf"


def one_game(engine: Engine, agents_spec: str, seed: int, cap: int) -> dict:
    """Play one game of one player with seed `seed` until it is over or round `cap` is over; return
    the rounds it took, how it ended and the CPU seconds."""
    agents = make_agents(agents_spec, 1, seed, engine)
    st = engine.new_game(1, seed)
    start = time.process_time()
    ended = None
    try:
        while not engine.is_over(st) and st.round <= cap:
            play(engine, st, agents, max_decisions=1)
    except LimitError as e:
        ended = f"limit: {e}"
    seconds = time.process_time() - start
    if st.result is not None:
        won = bool(st.result["winners"])
        ended = ("won: " if won else "lost: ") + (st.result["reason"] or "")
        return {"seed": seed, "rounds": st.round, "won": won, "ended": ended, "seconds": seconds}
    return {"seed": seed, "rounds": cap + 1, "won": False, "ended": ended or f"still running after round {cap}",
            "seconds": seconds}


def _shown(n, cap: int) -> str:
    """A number of rounds as printed: `>cap` past the cap."""
    return f"{n:g}" if n <= cap else f">{cap}"


def main(argv=None) -> int:
    """Play the games and print the rounds of each and their median."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ruleset", nargs="?", default=RACE, help=f"a ruleset of one player (default: {RACE})")
    ap.add_argument("--games", type=int, default=20, help="games to play (default 20)")
    ap.add_argument("--seed", type=int, default=1, help="the seed of the first game (default 1)")
    ap.add_argument("--agents", default="greedy", help="the bot, as `lfdsl run --agents` takes it (default greedy)")
    ap.add_argument("--cap", type=int, default=40, help="the last round played (default 40)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="set a ruleset parameter")
    args = ap.parse_args(argv)

    path = Path(args.ruleset)
    try:
        engine = Engine.load(path if path.is_absolute() else ROOT / path, params=_params(args.set) or None)
    except LanguageError as e:  # a ruleset or a `--set` value that is wrong, at its place
        print(e.render(), file=sys.stderr)
        return 2
    print(f"{args.ruleset}, agents {args.agents}, seeds {args.seed} to {args.seed + args.games - 1}, "
          f"round cap {args.cap}" + (f", {' '.join(args.set)}" if args.set else ""))

    def shown(n) -> str:
        return _shown(n, args.cap)

    games = []
    for g in range(args.games):
        r = one_game(engine, args.agents, args.seed + g, args.cap)
        games.append(r)
        print(f"seed {r['seed']:>4}  rounds {shown(r['rounds']):>4}  {r['seconds']:7.1f} s  {r['ended']}", flush=True)
    rounds = [r["rounds"] if r["won"] else args.cap + 1 for r in games]
    q = statistics.quantiles(rounds, n=4, method="inclusive") if len(rounds) > 1 else [rounds[0]] * 3
    print(f"won {sum(r['won'] for r in games)} of {len(games)}; rounds to win: median "
          f"{shown(statistics.median(rounds))}, quartiles {shown(q[0])}-{shown(q[2])}, "
          f"range {shown(min(rounds))}-{shown(max(rounds))}")
    print("rounds to win per game: " + " ".join(shown(n) for n in rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
