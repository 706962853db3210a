"""The lab's commands: `lfdsl simulate`, `compare`, `tune`, `tournament`, `fit-eval` and `train`, which play
many games with bots and show what they tell. `register` adds them to the command line; the lab's
libraries (Rich, statsmodels, scipy, matplotlib, Optuna, Dask) are imported only when one of them runs.
"""
from __future__ import annotations

import os
import re
import sys

from rulesdsl.errors import Diagnostic, count_of, suggest, visible
from rulesdsl.limits import MAX_ROUND_LIMIT

from ..tools import options as opt
from ..tools.commands import (EXIT_INCOMPLETE, EXIT_OK, Incomplete, UsageError, _agents_for, _load, _params,
                        _players_for, add_common, add_search)
from ..compile.params import ParamError, Typed, resolve_params
from ..engine import LimitError
from ..tools.agents import make_agents


def register(sub) -> None:
    """Adds the lab's commands to `sub` (the subcommands of `lfdsl`), each with its handler and
    the extra it needs."""
    tr = sub.add_parser("tournament", help="play every pair of bots over N games: win rates and a rating ladder")
    add_common(tr)
    tr.add_argument("--bots", required=True, help="two or more agents: mcts,greedy,random")
    tr.add_argument("--games", type=opt.GAMES, default=20, help="games per pair (default 20)")
    tr.add_argument("--players", type=opt.PLAYERS)
    tr.add_argument("--seed", type=opt.SEED, default=1, help="the first game's seed")
    tr.add_argument("--workers", type=opt.WORKERS, help="processes to play on (default: every core)")
    tr.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    tr.set_defaults(func=cmd_tournament, extra="lab")
    fe = sub.add_parser("fit-eval", help="check the ruleset's evaluation: which of its scores predict the winner")
    add_common(fe)
    fe.add_argument("--players", type=opt.PLAYERS)
    # the intervals are by game: one game is no sample of games
    fe.add_argument("--games", type=opt.number("--games", 2, opt.MAX_GAMES), default=200,
                    help="games to play (default 200, at least 2)")
    fe.add_argument("--agents", default="greedy", help="the agents that play them (default greedy)")
    fe.add_argument("--seed", type=opt.SEED, default=1, help="the first game's seed")
    fe.add_argument("--every", type=opt.EVERY, default=3, help="keep a position every N decisions (default 3)")
    fe.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    fe.set_defaults(func=cmd_fit_eval, extra="lab")
    tn = sub.add_parser("train", help="learn an evaluation for the bots by self-play (for a ruleset with no `evaluate` block)")
    add_common(tn)
    tn.add_argument("--players", type=opt.PLAYERS)
    tn.add_argument("--games", type=opt.GAMES, default=100, help="games per iteration (default 100)")
    tn.add_argument("--iterations", type=opt.ITERATIONS, default=3,
                    help="rounds of self-play and fit, each with the model before (default 3)")
    tn.add_argument("--bots", default="greedy", help="the bots that play the games (default greedy)")
    tn.add_argument("--seed", type=opt.SEED, default=1, help="the first game's seed")
    tn.add_argument("--every", type=opt.EVERY, default=2, help="keep a position every N decisions (default 2)")
    tn.set_defaults(func=cmd_train, extra="lab")
    sm = sub.add_parser("simulate", help="play many games with bots and print what they show, with intervals")
    add_common(sm)
    many_games(sm, "games to play (default 100)", "the first game's seed; game g has seed+g",
               "also write the figures as JSON")
    sm.add_argument("--sweep", metavar="NAME=LO..HI", help="simulate every value of a parameter (or NAME=V1,V2,...)")
    sm.add_argument("--spread", nargs="?", const="greedy,random", metavar="BOTS",
                    help="also play every pair of these bots, strongest first (default greedy,random; e.g. "
                         "mcts,greedy,random), --games games each, seats alternated: the skill spread")
    sm.set_defaults(func=cmd_simulate, extra="lab")
    cp = sub.add_parser("compare", help="simulate two rulesets (or one with two --set sets) and test every difference")
    cp.add_argument("ruleset", help="ruleset A")
    cp.add_argument("ruleset_b", nargs="?", metavar="ruleset-b", help="ruleset B (default: A, with --set-b)")
    cp.add_argument("--cards", help="card database for both (default: each ruleset's `cards` lines)")
    cp.add_argument("--set", action="append", metavar="NAME=VALUE", help="a parameter for both")
    cp.add_argument("--set-a", action="append", metavar="NAME=VALUE", help="a parameter for A only")
    cp.add_argument("--set-b", action="append", metavar="NAME=VALUE", help="a parameter for B only")
    add_search(cp)
    many_games(cp, "games on each side (default 100)", "the first game's seed, on both sides",
               "also write both sides' figures and the tests as JSON")
    cp.add_argument("--seed-b", type=opt.SEED_B, help="B's first seed, when B should not replay A's seeds")
    cp.add_argument("--no-value", action="store_true",
                    help="when the sides' cards differ, do not play the changed cards' restricted-play games")
    cp.set_defaults(func=cmd_compare, extra="lab")
    va = sub.add_parser("value", help="what each card, option or action is worth: a seat that never takes it "
                                      "against the usual bots (restricted play)")
    add_common(va)
    # `--cards` names the card database, as for every command: what is valued is said by `--items`.
    va.add_argument("--items", dest="kind", choices=("cards", "options", "actions"), default="cards",
                    help="what to value: the cards by name (the default), the labelled options or the actions")
    va.add_argument("--take", action="store_true", help="the converse: the seat always takes the item when offered")
    va.add_argument("--only", metavar="NAME,NAME", help="value these items only (as the baseline offered them)")
    va.add_argument("--top", type=opt.number("--top", 1, opt.MAX_VALUES), default=20,
                    help="value the N items offered most often in the baseline (default 20)")
    va.add_argument("--players", type=opt.PLAYERS)
    va.add_argument("--games", type=opt.GAMES, default=100, help="games per item, and of the baseline (default 100)")
    va.add_argument("--agents", default="greedy", help="the agents of every seat (default greedy; docs/agents.md)")
    va.add_argument("--seed", type=opt.SEED, default=1, help="the first game's seed; game g has seed+g on every side")
    va.add_argument("--workers", type=opt.WORKERS, help="processes to play on (default: every core)")
    va.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    va.add_argument("--report", metavar="FILE.html", help="also write a page with the table and plots")
    va.set_defaults(func=cmd_value, extra="lab")
    tu = sub.add_parser("tune", help="search the ruleset's parameters for a target (Optuna)")
    add_common(tu)
    tu.add_argument("--param", action="append", required=True, metavar="NAME=LO..HI",
                    help="a parameter to search, whole numbers LO..HI or values V1,V2,... (repeatable)")
    tu.add_argument("--target", required=True, help="`seat win rates equal` or `median rounds N`")
    tu.add_argument("--trials", type=opt.TRIALS, default=20, help="settings tried (default 20)")
    many_games(tu, "games per trial (default 100)", "the first game's seed, and the sampler's",
               "also write every trial and the result as JSON", report=False)
    tu.set_defaults(func=cmd_tune, extra="tune")


def many_games(sp, games_help, seed_help, json_help, report=True):
    """The options of the commands that play many games: simulate, compare, tune."""
    sp.add_argument("--players", type=opt.PLAYERS)
    sp.add_argument("--games", type=opt.GAMES, default=100, help=games_help)
    sp.add_argument("--agents", default="greedy",
                    help="one agent for every seat or one per seat (default greedy; docs/agents.md)")
    sp.add_argument("--seed", type=opt.SEED, default=1, help=seed_help)
    sp.add_argument("--workers", type=opt.WORKERS, help="processes to play on (default: every core)")
    sp.add_argument("--json", metavar="FILE", help=json_help)
    if report:
        sp.add_argument("--report", metavar="FILE.html", help="also write a page with the tables and plots")
    sp.add_argument("--cluster", metavar="tcp://HOST:PORT",
                    help="play on this Dask distributed cluster instead of local processes")


def _seeds_fit(option: str, seed: int, count: int) -> None:
    """The `count` seeds from `seed` on stay within the engine's seeds."""
    if seed + count - 1 > opt.MAX_SEED:
        raise opt.at(option, str(seed), f"the games' seeds would run past {opt.MAX_SEED:,} "
                     f"({count_of(count, 'game')} from this seed)",
                     f"give a seed of at most {opt.MAX_SEED - count + 1:,}")


def _lab():
    """The lab's modules (a missing library is named by `main` with the extra that brings it)."""
    from . import figures, games, show
    return figures, games, show


def _sweep_values(text: str, engine, option: str = "--sweep", n: int = 1) -> tuple[str, list[str]]:
    """`NAME=LO..HI` (whole numbers) or `NAME=V1,V2,...`, the `n`-th `option`: the parameter and its
    values, as typed, each knowing its place in `text` (a value the parameter cannot take is
    reported there)."""
    def bad(col, message, hint=None):
        raise ParamError([Diagnostic(option, n, col, message, hint, text)])
    if "=" not in text:
        bad(len(text) + 1, f"`{option}` takes name=LO..HI or name=V1,V2,...", f"write `{option} {text or 'name'}=8..14`")
    name, spec = text.split("=", 1)
    if name not in engine.params:
        bad(1, f"the ruleset has no parameter {opt.shown(name, 'name')}", suggest(name, engine.params))
    start = len(name) + 2
    m = re.fullmatch(r"(-?[0-9]+)\.\.(-?[0-9]+)", spec)
    if m:
        ends = []
        for k in (1, 2):
            end = opt.in_int_range(m.group(k))
            if end is None:
                bad(start + m.start(k), f"the range's end ({opt.shown(m.group(k))}) is outside the engine's "
                    f"whole numbers, {opt.MIN_INT:,} to {opt.MAX_INT:,}")
            ends.append(end)
        lo, hi = ends
        if hi < lo:
            bad(start, f"the range {spec} is empty", f"write `{name}={hi}..{lo}`")
        if hi - lo >= opt.MAX_VALUES:
            bad(start, f"the range {spec} has {hi - lo + 1:,} values; a sweep takes at most {opt.MAX_VALUES}")
        return name, [Typed(str(v), option, n, text, start) for v in range(lo, hi + 1)]
    values, col = [], start
    for value in spec.split(","):
        if not value:
            bad(col, "a value of the sweep is empty", "write `name=LO..HI` or `name=V1,V2,...`")
        if len(values) == opt.MAX_VALUES:
            bad(col, f"a sweep takes at most {opt.MAX_VALUES} values")
        values.append(Typed(value, option, n, text, col))
        col += len(value) + 1
    return name, values


def cmd_simulate(args) -> int:
    """`lfdsl simulate`: many games (for each value of `--sweep`), their figures as tables, JSON, a page."""
    import time

    if args.sweep:
        return _simulate_sweep(args)
    engine = _load(args)
    g = engine.model.game
    players = _players_for(engine, args.players)
    _check_counts(args)
    _agents_for(args.agents, players, args.seed, engine)  # a mistake is reported before any game
    figures, games, show = _lab()
    start = time.perf_counter()
    records = _run_games(show, games, engine, players, args, args.seed, g.name, show.console(stderr=True))
    seconds = time.perf_counter() - start
    data = figures.summarize(records, players)
    out = show.console()
    title = (f"{g.name}: {count_of(players, 'player')}, {count_of(args.games, 'game')} (seeds {args.seed} to "
             f"{args.seed + args.games - 1}), agents {args.agents}")
    for t in show.tables(data, title, agents=args.agents):
        out.print(t)
    where = f"the cluster at {args.cluster}" if args.cluster else count_of(min(args.workers, args.games), "worker")
    out.print(f"{(data['games'] - data['lost']) / seconds:.1f} games/s on {where} ({seconds:.1f} s)")
    if args.spread:
        from ..bots import parse_agents
        from .quality import skill_spread
        bots = [s.text for s in parse_agents(args.spread, "--spread")]
        if len(bots) < 2 or len(set(bots)) < len(bots):
            raise opt.at("--spread", args.spread, "the skill spread needs two bots or more, each named once",
                         "`--spread greedy,random`, or `--spread mcts,greedy,random`")
        with show.progress(show.console(stderr=True)) as bar:
            pairs = len(bots) * (len(bots) - 1) // 2
            task = bar.add_task("skill spread", total=args.games * pairs)
            data["quality"]["skill_spread"] = skill_spread(engine, players, args.games, args.seed, args.workers,
                                                           lambda: bar.advance(task), tuple(bots))
        out.print(show.spread(data["quality"]["skill_spread"]))
    if args.json:
        _write_json(args.json, {"ruleset": args.ruleset, "players": players, "agents": args.agents,
                                "seed": args.seed, "set": {k: str(v) for k, v in _params(args.set).items()}, **data})
    if args.report:
        from . import report
        _write_text(args.report, report.simulation(f"{g.name}: simulation", f"{args.ruleset}; {title}", data, records,
                                                   report.provenance(engine)))
    return _lost(figures, records)


def _simulate_sweep(args) -> int:
    engine = _load(args)
    name, values = _sweep_values(args.sweep, engine)
    players = _players_for(engine, args.players)
    _check_counts(args)
    _agents_for(args.agents, players, args.seed, engine)
    # every value is loaded, and so checked, before any game is played
    engines = [_load(args, {name: value}) for value in values]
    figures, games, show = _lab()
    err, runs, played = show.console(stderr=True), [], []
    for value, e in zip(values, engines):
        records = _run_games(show, games, e, players, args, args.seed, f"{name}={value}", err)
        played += records
        runs.append({"value": value, **figures.summarize(records, players)})
    out = show.console()
    g = engine.model.game
    out.print(show.sweep(runs, name, f"{g.name}: {count_of(players, 'player')}, {count_of(args.games, 'game')} per "
                         f"value (seeds {args.seed} to {args.seed + args.games - 1}), agents {args.agents}"))
    if any(r["ties"] for r in runs):
        out.print(show.shared_note(sum(r["ties"] for r in runs)))
    if args.json:
        _write_json(args.json, {"ruleset": args.ruleset, "players": players, "agents": args.agents, "seed": args.seed,
                                "set": {k: str(v) for k, v in _params(args.set).items()},
                                "sweep": {"param": name, "values": values}, "runs": runs})
    if args.report:
        from . import report
        _write_text(args.report, report.sweep(f"{g.name}: sweep of {name}", f"{args.ruleset}; {count_of(players, 'player')}, "
                                              f"{count_of(args.games, 'game')} per value, agents {args.agents}", name, runs,
                                              report.provenance(*engines)))
    return _lost(figures, played)


def cmd_tune(args) -> int:
    """`lfdsl tune`: Optuna searches the `--param` values for the target; the best is confirmed on fresh seeds."""
    from . import tune
    engine = _load(args)
    g = engine.model.game
    try:
        target = tune.parse_target(args.target)
    except tune.TargetError:
        raise ParamError([Diagnostic("--target", 1, 1, f"no target {opt.shown(args.target, 'target')}",
                                     "the targets: " + "; ".join(f"`{t}`" for t in tune.TARGETS), args.target)]) from None
    if target[0] == "rounds" and not target[1] <= MAX_ROUND_LIMIT:
        raise opt.at("--target", args.target, f"no game lasts more than {MAX_ROUND_LIMIT:,} rounds (the engine's "
                     "ceiling), so the target cannot be met")
    space = {}
    for n, text in enumerate(args.param, 1):
        name, values = _sweep_values(text, engine, "--param", n)
        if name in space:
            raise ParamError([Diagnostic("--param", n, 1, f"`{name}` is given twice", None, text)])
        for v in values:  # every value a trial may take is checked before any game, at its place
            resolve_params(engine.model, {**_params(args.set), name: v})
        for v in dict.fromkeys((values[0], values[-1])):  # and the ends build a game
            _load(args, {name: v})
        ranged = re.fullmatch(r"[^=]+=-?[0-9]+\.\.-?[0-9]+", text)
        space[name] = (int(values[0]), int(values[-1])) if ranged else values
    players = _players_for(engine, args.players)
    _check_counts(args, confirmation=True)
    _agents_for(args.agents, players, args.seed, engine)
    fixed = _params(args.set)
    figures, games, show = _lab()
    err = show.console(stderr=True)

    seen: dict = {}  # a setting tried again plays the same seeds: its figures are known

    def simulate(params, seed=args.seed, label=None):
        key = (seed, tuple(sorted(params.items())))
        if key in seen:
            return seen[key]
        e = _load(args, params)
        records = _run_games(show, games, e, players, args, seed,
                             label or ", ".join(f"{k}={v}" for k, v in params.items()), err)
        if _lost(figures, records):
            # A trial with games missing is not comparable with the others: the search stops.
            raise Incomplete("the search stopped: a trial cannot be weighed without all its games")
        seen[key] = figures.summarize(records, players), records
        return seen[key]

    result = tune.search(space, target, args.trials, args.seed, simulate)
    best = result["best"]
    fresh = args.seed + args.games
    data, records = simulate(best["params"], fresh, "confirmation")
    check = tune.confirmation(target, data, records, args.seed)
    out = show.console()
    out.print(f"{g.name}: {count_of(players, 'player')}, target: {args.target}; "
              f"{count_of(args.trials, 'trial')} of {count_of(args.games, 'game')} (seeds {args.seed} to "
              f"{args.seed + args.games - 1}), agents {args.agents}; Optuna's TPE sampler (seed {args.seed})")
    out.print(show.trials(result["trials"], list(space), target[0]))
    setting = ", ".join(f"{k}={v}" for k, v in best["params"].items())
    out.print(f"Best: {setting} (trial {best['trial']}, distance to the target {best['objective']:g})")
    if target[0] == "seats":
        rates = "; ".join(f"{s['seat']} {s['win_rate']:.1%} [{s['ci95'][0]:.1%}, {s['ci95'][1]:.1%}]"
                          for s in check["seats"] if s["win_rate"] is not None)
        out.print(f"Confirmed on {count_of(args.games, 'fresh game')} (seeds {fresh} to {fresh + args.games - 1}): "
                  f"win rates {rates}; spread {check['objective']:g}")
    else:
        lo, hi = check["ci95"]
        out.print(f"Confirmed on {count_of(args.games, 'fresh game')} (seeds {fresh} to {fresh + args.games - 1}): "
                  f"median rounds {_num(check['median_rounds'])} [{_num(lo)}, {_num(hi)}] ({check['interval']})")
    if args.json:
        _write_json(args.json, {"ruleset": args.ruleset, "players": players, "agents": args.agents, "seed": args.seed,
                                "games": args.games, "set": fixed, "target": args.target,
                                "space": {k: list(v) for k, v in space.items()},
                                "sampler": "optuna.samplers.TPESampler", "trials": result["trials"],
                                "best": {"trial": best["trial"], "params": best["params"], "objective": best["objective"]},
                                "confirmation": {"seeds": [fresh, fresh + args.games - 1], **check}})
    return EXIT_OK


def _num(x) -> str:
    return "-" if x is None else f"{x:g}"


def _run_games(show, games, engine, players, args, seed, label, console):
    with show.progress(console) as bar:
        task = bar.add_task(label, total=args.games)
        try:
            return games.play_many(engine, players, args.agents, range(seed, seed + args.games), args.workers,
                                   each=lambda _r: bar.advance(task), cluster=args.cluster)
        except games.ClusterError as exc:
            raise UsageError(str(exc)) from None


def _played(records: list[dict]) -> list[dict]:
    return [r for r in records if r["status"] != "lost"]


def _lost(figures, records: list[dict]) -> int:
    """EXIT_OK, or EXIT_INCOMPLETE after saying which games were lost with a cluster's workers."""
    lost = [r for r in records if r["status"] == "lost"]
    if not lost:
        return EXIT_OK
    why = "; ".join(sorted({r["message"] for r in lost}))
    print(f"lfdsl: {count_of(len(lost), 'game')} of {len(records)} lost with the cluster ({why}): seeds "
          f"{figures.seed_ranges(r['seed'] for r in lost)}; the figures are those of the "
          f"{count_of(len(records) - len(lost), 'game')} played. Play the lost seeds again when the "
          "cluster has workers (`--seed`, `--games`).", file=sys.stderr)
    return EXIT_INCOMPLETE


def _write_json(path, doc) -> None:
    import json
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def _write_text(path, text) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def _check_counts(args, confirmation: bool = False) -> None:
    """The options of the commands that play many games, past what their types check alone: the
    cluster's address, the seeds the games will take (twice as many for a `confirmation` run on
    fresh seeds), the workers by default."""
    if args.cluster:
        from .games import cluster_address
        wrong = cluster_address(args.cluster)
        if wrong:
            raise ParamError(wrong)
        import importlib.util
        if importlib.util.find_spec("distributed") is None:
            raise UsageError("--cluster needs the cluster extra (dask distributed): pip install 'lfdsl[cluster]'")
    _seeds_fit("--seed", args.seed, args.games * (2 if confirmation else 1))
    if getattr(args, "seed_b", None) is not None:
        _seeds_fit("--seed-b", args.seed_b, args.games)
    if args.workers is None:
        args.workers = min(os.cpu_count() or 1, opt.MAX_WORKERS)


def cmd_compare(args) -> int:
    """`lfdsl compare`: two sides simulated and every figure tested, Holm-corrected."""
    _check_counts(args)
    both = _params(args.set)
    a_only, b_only = _params(args.set_a, "--set-a"), _params(args.set_b, "--set-b")
    a_set, b_set = {**both, **a_only}, {**both, **b_only}
    b_path = args.ruleset_b or args.ruleset
    a = _load(args, a_only)
    b = _load(args, b_only, b_path)
    players = _players_for(a, args.players)
    _players_for(b, players)
    _agents_for(args.agents, players, args.seed, a)
    figures, games, show = _lab()
    from .compare import ALPHA, CORRECTION, SHORT, compare
    b_seed = args.seed if args.seed_b is None else args.seed_b
    err = show.console(stderr=True)
    a_records = _run_games(show, games, a, players, args, args.seed, "A", err)
    b_records = _run_games(show, games, b, players, args, b_seed, "B", err)
    # Games lost with a cluster's workers are left out of the tests, not counted as unfinished.
    rows = compare(_played(a_records), _played(b_records), players)
    changed = [] if args.no_value else changed_cards(a, b)
    worth = _changed_worth(changed, ((a, args.seed), (b, b_seed)), players, args, show, err) if changed else {}

    def name(path, params):
        return path + "".join(f" {k}={v}" for k, v in params.items())
    a_name, b_name = name(args.ruleset, a_set), name(b_path, b_set)
    sides = _side_names(args.ruleset, a_set, b_path, b_set)
    seeds = (f"the same seeds ({args.seed} to {args.seed + args.games - 1})" if b_seed == args.seed else
             f"seeds {args.seed}.. for A and {b_seed}.. for B")
    out = show.console()
    out.print(f"A: {a_name}\nB: {b_name}\n{count_of(players, 'player')}, {count_of(args.games, 'game')} each, "
              f"{seeds}, agents {args.agents}")
    for part in show.comparison(rows, f"Figures (B - A; p-values of two-sided tests): A = {sides[0]}, B = {sides[1]}",
                                SHORT, sides):
        out.print(part)
    out.print(f"Significant at {ALPHA:.0%} after {CORRECTION.split(' (')[0]}'s correction over the "
              f"{sum(r['p'] is not None for r in rows)} figures tested: "
              f"{sum(r['significant'] for r in rows) or 'none'}.")
    if changed:
        out.print(show.changed_worth(changed, worth, sides))
    if args.json:
        _write_json(args.json, {
            "players": players, "agents": args.agents, "games": args.games, "alpha": ALPHA, "correction": CORRECTION,
            "a": {"ruleset": args.ruleset, "set": a_set, "seed": args.seed, **figures.summarize(a_records, players)},
            "b": {"ruleset": b_path, "set": b_set, "seed": b_seed, **figures.summarize(b_records, players)},
            "tests": rows, "changed_cards": {c: {"a": worth["a"].get(c), "b": worth["b"].get(c)} for c in changed}})
    if args.report:
        from . import report
        fa, fb = figures.summarize(a_records, players), figures.summarize(b_records, players)
        _write_text(args.report, report.comparison(
            f"A: {a_name} against B: {b_name}", f"{count_of(players, 'player')}, {count_of(args.games, 'game')} "
            f"each, {seeds}, agents {args.agents}", (sides[0], fa, a_records), (sides[1], fb, b_records), rows, SHORT,
            report.provenance(a, b), (changed, worth)))
    return _lost(figures, a_records + b_records)


MAX_CHANGED = 10  # changed cards a comparison values by restricted play


def changed_cards(a, b) -> list[str]:
    """The names of the cards whose definition differs between engines `a` and `b` (a field, or
    the kind, or only one side has it), in name order."""
    def defs(engine):
        return {d.name: (d.kind, sorted((k, repr(v)) for k, v in d.fields.items())) for d in engine.cards.defs}
    da, db = defs(a), defs(b)
    return sorted(n for n in set(da) | set(db) if da.get(n) != db.get(n))


def _changed_worth(changed, sides, players, args, show, err) -> dict:
    """Restricted play (lab/value.py) of the changed cards on each side, with that side's seeds:
    {"a": {card: row}, "b": {card: row}}; a card no baseline game offered has no row. At most
    `MAX_CHANGED` cards, the first in name order."""
    from . import value
    out = {}
    for key, (engine, seed) in zip("ab", sides):
        with show.progress(err) as bar:
            task = bar.add_task(f"{key.upper()}: worth of the changed cards", total=args.games)
            base = value.baseline(engine, players, args.agents, args.games, "cards", seed, args.workers,
                                  lambda: bar.advance(task))
            offered = dict(value.items_offered(base))
            items = [c for c in changed[:MAX_CHANGED] if c in offered]
            bar.update(task, total=args.games * (1 + len(items)))
            runs = value.restricted(engine, players, args.agents, args.games, "cards", items, "avoid", seed,
                                    args.workers, lambda: bar.advance(task), base)
        out[key] = {r["item"]: r for r in value.worth(base, runs)}
    return out


def _side_names(a_path: str, a_set: dict, b_path: str, b_set: dict) -> tuple[str, str]:
    """Short names for the two sides of a comparison: what tells them apart, the files' names (the
    whole paths when the names are the same) and the parameters set differently."""
    from pathlib import PurePath
    a_file, b_file = PurePath(a_path).name, PurePath(b_path).name
    if a_path == b_path:
        a_file = b_file = ""
    elif a_file == b_file:
        a_file, b_file = a_path, b_path

    def name(file, mine, theirs):
        parts = ([file] if file else []) + [f"{k}={v}" for k, v in mine.items() if theirs.get(k) != v]
        return " ".join(parts)
    a, b = name(a_file, a_set, b_set), name(b_file, b_set, a_set)
    return (a or "A", b or "B") if a != b else ("A", "B")


def cmd_tournament(args) -> int:
    """`lfdsl tournament`: every pair of bots over the games, seats alternated, and their win rates."""
    from ..bots import parse_agents
    engine = _load(args)
    g = engine.model.game
    players = _players_for(engine, args.players, 2, max(2, g.default_players))  # a game of one: two at least
    _seeds_fit("--seed", args.seed, args.games)
    specs = parse_agents(args.bots, "--bots")
    if not 2 <= len(specs) <= opt.MAX_BOTS:
        raise opt.at("--bots", args.bots, f"a tournament takes 2 to {opt.MAX_BOTS} bots, not {len(specs)}",
                     "`--bots mcts,random`" if len(specs) < 2 else None)
    bots = [s.text for s in specs]
    if len(set(bots)) < len(bots):
        raise opt.at("--bots", args.bots, "a bot is named twice", "name each bot once: a pair needs two")
    for bot in bots:  # each as it would sit at every seat; the note on the evaluation is said once
        _agents_for(bot, players, args.seed, engine, option="--bots", note=bot == bots[-1] and specs)
    _, _, show = _lab()  # the tournament's table is the lab's: without it, the missing extra is named before any game
    from .tournament import ladder, ratings, table, tournament
    workers = args.workers if args.workers is not None else min(os.cpu_count() or 1, opt.MAX_WORKERS)
    pairs = len(bots) * (len(bots) - 1) // 2
    print(visible(f"{g.name}: {count_of(players, 'player')}, {count_of(args.games, 'game')} per pair, "
                  f"seeds from {args.seed}, seats alternated, {count_of(min(workers, pairs * args.games), 'worker')}"))
    with show.progress(show.console(stderr=True)) as bar:
        task = bar.add_task("games", total=pairs * args.games)
        results = tournament(engine, bots, args.games, players, args.seed, progress=lambda: bar.advance(task),
                             workers=workers)
    for line in table(results):
        print(visible(line))
    rates = ratings(bots, results)
    print()
    for line in ladder(rates, bots[0]):
        print(visible(line))
    if args.json:
        _write_json(args.json, {
            "ruleset": args.ruleset, "players": players, "games": args.games, "seed": args.seed, "bots": bots,
            "pairs": [r.to_json() for r in results],
            "ratings": [{"bot": r.bot, "elo": round(r.elo, 1), "interval95": [round(r.low, 1), round(r.high, 1)]}
                        for r in rates],
            "rating": "Bradley-Terry, Elo scale, binomial GLM (statsmodels), first bot at 0"})
    return EXIT_OK


def cmd_value(args) -> int:
    """`lfdsl value`: restricted play, the baseline first, then every item's games."""
    engine = _load(args)
    g = engine.model.game
    players = _players_for(engine, args.players)  # solo too: the one seat is restricted
    _seeds_fit("--seed", args.seed, args.games)
    _agents_for(args.agents, players, args.seed, engine)
    if args.workers is None:
        args.workers = min(os.cpu_count() or 1, opt.MAX_WORKERS)
    _, _, show = _lab()
    from . import value
    what = {"cards": "card", "options": "option", "actions": "action"}[args.kind]
    mode = "take" if args.take else "avoid"
    err = show.console(stderr=True)
    with show.progress(err) as bar:
        task = bar.add_task("baseline", total=args.games)
        base = value.baseline(engine, players, args.agents, args.games, args.kind, args.seed, args.workers,
                              lambda: bar.advance(task))
    offered = value.items_offered(base)
    if args.only:
        names = dict(offered)
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        missing = [w for w in wanted if w not in names]
        if missing:
            col = next(m.start() + 1 for m in re.finditer(r"[^,]+", args.only) if m.group().strip() == missing[0])
            raise opt.at("--only", args.only, f"no {what} {opt.shown(missing[0], 'name')} was offered in the "
                         f"{count_of(args.games, 'baseline game')}", suggest(missing[0], names), col=col)
        items = wanted
    else:
        items = [name for name, _ in offered[:args.top]]
    if not items:
        raise UsageError(f"no {what} was offered in the {count_of(args.games, 'baseline game')}: nothing to value")
    with show.progress(err) as bar:
        task = bar.add_task(f"{count_of(len(items), what)}", total=len(items) * args.games)
        runs = value.restricted(engine, players, args.agents, args.games, args.kind, items, mode, args.seed,
                                args.workers, lambda: bar.advance(task), base)
    rows = value.worth(base, runs)
    rule = "never takes it" if mode == "avoid" else "always takes it when it is offered"
    title = (f"{g.name}: {count_of(players, 'player')}, {count_of(args.games, 'game')} per {what} "
             f"(seeds {args.seed} to {args.seed + args.games - 1}), agents {args.agents}")
    out = show.console()
    out.print(show.value(rows, title, what))
    out.print(f"drop: the restricted seat's win rate (seats rotated, a shared win counted as a win) in the "
              f"games without restriction, minus in the same games (same seeds) when it {rule}; steered: the "
              f"games where the restriction changed what the seat's bot took.")
    out.print("Interval: " + value.METHODS["interval"] + "; test: " + value.METHODS["test"] + ", corrected by "
              + value.METHODS["correction"].split(" (")[0] + f"'s method over {count_of(len(rows), what)}. "
              f"Significant at {value.ALPHA:.0%}: {sum(r['significant'] for r in rows) or 'none'}.")
    if args.json:
        _write_json(args.json, {"ruleset": args.ruleset, "players": players, "agents": args.agents, "kind": args.kind,
                                "mode": mode, "games": args.games, "seed": args.seed, "methods": value.METHODS,
                                "offered": dict(offered), "rows": rows})
    if args.report:
        from . import report
        _write_text(args.report, report.value(f"{g.name}: what each {what} is worth", f"{args.ruleset}; {title}; "
                                              f"the restricted seat {rule}",
                                              rows, what, value.METHODS, made_from=report.provenance(engine)))
    return EXIT_OK


def cmd_fit_eval(args) -> int:
    """`lfdsl fit-eval`: which of the `evaluate` block's scores predict the winner."""
    engine = _load(args)
    g = engine.model.game
    players = _players_for(engine, args.players)
    if engine.evaluation is None:
        return _fit_learned(args, engine, players)
    _seeds_fit("--seed", args.seed, args.games)
    _agents_for(args.agents, players, args.seed, engine)
    names = [name for name, _ in engine.evaluation[1]]
    if not names:
        raise UsageError(f"the `evaluate` block of {args.ruleset} names no score (`score NAME = ...`): "
                         "there is nothing to weigh")
    _, _, show = _lab()
    from . import evalfit
    print(visible(f"{g.name}: {count_of(players, 'player')}, {count_of(args.games, 'game')} with agents "
                  f"{args.agents}, seeds from {args.seed}, a position every {count_of(args.every, 'decision')}"))
    with show.progress(show.console(stderr=True)) as bar:
        task = bar.add_task("games", total=args.games)
        rows, finished = evalfit.collect(engine, args.agents, players, args.games, args.seed, args.every,
                                         each=lambda: bar.advance(task))
    try:
        result = evalfit.fit(names, rows, players, args.games, finished)
    except evalfit.FitError as exc:
        raise UsageError(str(exc)) from None
    print(f"{count_of(finished, 'game')} finished, {count_of(result.positions, 'position')} kept")
    print("the winner fitted on each score's difference from the others' mean (logistic, 95% intervals by game)")
    print()
    for line in evalfit.table(result):
        print(line)
    if args.json:
        _write_json(args.json, {"ruleset": args.ruleset, "agents": args.agents, "seed": args.seed,
                                "every": args.every, **result.to_json()})
    return EXIT_OK


def cmd_train(args) -> int:
    """`lfdsl train`: fit the ruleset's learned evaluation by self-play and keep it beside the ruleset."""
    engine = _load(args)
    g = engine.model.game
    players = _players_for(engine, args.players)
    _seeds_fit("--seed", args.seed, args.games * args.iterations)
    _agents_for(args.bots, players, args.seed, engine, option="--bots", note=False)
    _, _, show = _lab()
    from ..bots import learned
    from ..bots.features import FeatureLayout, LayoutTooLarge
    from . import train
    path = learned.model_path(engine, players)
    why = learned.writable(path)
    if why is not None:
        raise UsageError(why)
    try:
        FeatureLayout(engine, players)
    except LayoutTooLarge as exc:
        raise UsageError(str(exc)) from None
    if engine.evaluation is not None:
        print(visible(f"note: {args.ruleset} has an `evaluate` block, which the bots use; they use the "
                      "learned evaluation instead when told so (`greedy:learned=2`)"), file=sys.stderr)
    print(visible(f"{g.name}: {count_of(players, 'player')}, {count_of(args.iterations, 'iteration')} of "
                  f"{count_of(args.games, 'game')} with bots {args.bots}, seeds from {args.seed}, "
                  f"a position every {count_of(args.every, 'decision')}"))
    with show.progress(show.console(stderr=True)) as bar:
        task = bar.add_task("games", total=args.games * args.iterations)
        try:
            model, report = train.train(engine, players, args.games, args.iterations, args.seed, args.bots,
                                        args.every, each=lambda: bar.advance(task))
        except train.TrainError as exc:
            raise UsageError(str(exc)) from None
    print()
    print(f"{'iteration':>9}  {'finished':>8}  {'positions':>9}  model before: winner ranked first")
    for it in report:
        hits = "-" if it.hits is None else f"{100 * it.hits:.1f}%"
        print(f"{it.number:>9}  {it.finished:>8}  {it.positions:>9}  {hits}")
    try:
        learned.save(model, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    print(visible(f"wrote {path}: {len(model.labels)} entries, from {count_of(model.trained['positions'], 'position')}, "
                  f"penalty {model.trained['ridge']:g} (the best on one game in {train.HELD_OUT} held out)"))
    return EXIT_OK


def _fit_learned(args, engine, players: int) -> int:
    """`lfdsl fit-eval` on a ruleset without an `evaluate` block: how often its learned evaluation
    ranks a winner first, on games it was not trained on."""
    from ..bots import learned
    from ..bots.features import FeatureLayout
    from . import train
    model, why = learned.find(engine, players)
    if model is None:
        raise UsageError(f"{args.ruleset} has no `evaluate` block, and " + (
            f"its learned evaluation cannot be used:\n{why}" if why else
            f"no learned evaluation for {count_of(players, 'player')}: `lfdsl train` learns one "
            "(docs/agents.md, \"A learned evaluation\")"))
    _seeds_fit("--seed", args.seed, args.games)
    _agents_for(args.agents, players, args.seed, engine)
    _, _, show = _lab()
    layout = FeatureLayout(engine, players)
    rows, results, finished = [], [], 0
    print(visible(f"{engine.model.game.name}: {count_of(players, 'player')}, the learned evaluation "
                  f"{learned.model_path(engine, players)} on {count_of(args.games, 'game')} with agents "
                  f"{args.agents}, seeds from {args.seed}, a position every {count_of(args.every, 'decision')}"))
    with show.progress(show.console(stderr=True)) as bar:
        task = bar.add_task("games", total=args.games)
        for k in range(args.games):
            agents = make_agents(args.agents, players, args.seed + k, engine=engine)
            kept = train.collect(engine, players, args.seed + k, agents, layout, args.every)
            bar.advance(task)
            if kept is not None:
                finished += 1
                rows.extend(kept[0])
                results.extend([kept[1]] * len(kept[0]))
    if not rows:
        raise UsageError("no game finished: nothing to check the evaluation against")
    hits = train.hits(model, rows, results, players)
    chance = "on the right side of one half" if players == 1 else f"ranked a winner first (chance: about {100 / players:.0f}%)"
    print(f"{count_of(finished, 'game')} finished, {count_of(len(rows), 'position')} kept")
    print(f"the learned evaluation {chance}: {100 * hits:.1f}% of positions")
    return EXIT_OK
