"""`lfdsl`: check a ruleset, run a game, run scenarios. Only this module prints or writes files.

Exit codes: 0 success; 1 a scenario expectation failed; 2 the ruleset, cards, scenario or command
line is wrong (static error), or the command needs an optional extra that is not installed; 3 the
game failed while running (a rule looped or could not run); 4 an internal error of lfdsl; 5 games
were lost with a cluster's workers (what was played is shown).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from rulesdsl.errors import Diagnostic, LanguageError, count_of, player_range, suggest, visible
from rulesdsl.files import NUL_REFUSED
from rulesdsl.limits import MAX_ROUND_LIMIT

from . import options as opt
from .agents import make_agents, play
from .engine import Engine, GameError, InternalError, LimitError
from .extras import install_hint, missing_extra
from .options import OptionError
from .params import ParamError, Typed, resolve_params
from .scenario import run_scenario
from .trace import JsonLinesSink, TextSink, result_lines

EXIT_OK, EXIT_FAILED, EXIT_STATIC, EXIT_RUNTIME, EXIT_INTERNAL, EXIT_INCOMPLETE = 0, 1, 2, 3, 4, 5


class AgentFailure(Exception):
    """Bots that cannot finish a game (a deterministic bot looping until the game's limit)."""

    def __init__(self, error: GameError, message: str):
        super().__init__(message)
        self.error = error


class Incomplete(BaseException):
    """A run that cannot go on without the games a cluster lost (said before, exit 5). A
    BaseException, as SystemExit is, so that it stops a search at once: Optuna logs every Exception
    raised in a trial with its traceback before passing it on."""


class UsageError(Exception):
    """A command that cannot go on for a reason with no place on its command line to point at (a
    file that cannot be written, a ruleset without what the command needs)."""


def _params(pairs, option: str = "--set") -> dict:
    out = {}
    for n, pair in enumerate(pairs or [], 1):
        if "=" not in pair:
            raise ParamError([Diagnostic(option, n, len(pair) + 1, f"`{option}` takes name=value",
                                         f"write `{option} {pair or 'name'}=value`", pair)])
        k, v = pair.split("=", 1)
        # as typed: the engine shows the argument and refuses a value with spaces
        out[k] = Typed(v, option, n, pair, len(k) + 2)
    return out


def _no_nul(option: str, n: int, path: str) -> str:
    """A path given on the command line; one holding a NUL, which no file's name can, is refused at
    its place (`--path:2:5`, for the second `--path`)."""
    if "\0" in str(path):
        raise LanguageError([Diagnostic(option, n, str(path).index("\0") + 1, NUL_REFUSED, None, str(path))])
    return path


def _search(args) -> tuple:
    """The `--path` folders."""
    return tuple(_no_nul("--path", n, folder) for n, folder in enumerate(args.path or (), 1))


def _players_for(engine, wanted, at_least: int = 1, default=None):
    """`wanted` (`--players`; when None `default`, or the game's own) if the ruleset is played by it
    and the command can play it with that many."""
    g = engine.model.game
    players = wanted if wanted is not None else default if default is not None else g.default_players
    if not max(g.min_players, at_least) <= players <= g.max_players:
        need = f"; this command needs at least {at_least}" if at_least > g.min_players else ""
        given = f", not {players}" if wanted is not None else ""
        raise opt.at("--players", str(players) if wanted is not None else None,
                     f"{g.name} is played by {player_range(g.min_players, g.max_players)}{need}{given}")
    return players


def _agents_for(text: str, players: int, seed: int, engine, option: str = "--agents") -> list:
    """The agents `text` seats, one for all or one per seat; a count that does not fit, or a person
    where only bots can play, is reported at the option."""
    from .bots import parse_agents
    specs = parse_agents(text, option)
    if len(specs) not in (1, players):
        raise opt.at(option, text, f"{count_of(len(specs), 'agent')} for {count_of(players, 'player')}",
                     "give one agent for every seat, or one per seat separated by commas")
    if any(s.name == "human" for s in specs):
        raise opt.at(option, text, "`human` is a person at the table: play with `lfdsl play`, or give a bot here")
    return make_agents(text, players, seed, engine=engine, option=option)


def _seeds_fit(option: str, seed: int, count: int) -> None:
    """The `count` seeds from `seed` on stay within the engine's seeds."""
    if seed + count - 1 > opt.MAX_SEED:
        raise opt.at(option, str(seed), f"the games' seeds would run past {opt.MAX_SEED:,} "
                     f"({count_of(count, 'game')} from this seed)",
                     f"give a seed of at most {opt.MAX_SEED - count + 1:,}")


def _load(args, more: dict | None = None, ruleset=None) -> Engine:
    """The engine of the command's ruleset (or `ruleset`), its `--set` parameters and `more`."""
    return Engine.load(ruleset or args.ruleset, getattr(args, "cards", None),
                       {**_params(getattr(args, "set", None)), **(more or {})}, search=_search(args))


def cmd_check(args) -> int:
    engine = _load(args)
    m = engine.model
    routines = sum(1 for a in m.actions.values() if a.routine)
    print(visible(f"{args.ruleset}: ok: {m.game.name}, {player_range(m.game.min_players, m.game.max_players)}, "
                  f"{count_of(len(engine.cards.defs), 'card definition')}, "
                  f"{count_of(len(m.actions) - routines, 'action')}, {count_of(routines, 'routine')}, "
                  f"{count_of(len(m.round.phases), 'phase')}"))
    return EXIT_OK


def _seat(text: str, players: int) -> int:
    """A seat from 0, from `P2` or `2`."""
    t = text.strip().upper().removeprefix("P")
    try:
        return opt.whole(t, 1, players) - 1
    except opt.BoundError:
        raise opt.at("--view", text, f"--view takes a player from P1 to P{players}, not {opt.shown(text)}") from None


def cmd_run(args) -> int:
    engine = _load(args)
    players = _players_for(engine, args.players)
    agents = _agents_for(args.agents, players, args.seed, engine)
    sinks = []
    files = []
    viewer = _seat(args.view, players) if args.view else None
    if not args.quiet:
        text = TextSink(print, full_state=args.full_state)
        sinks.append(text if viewer is None else engine.player_sink(viewer, text))

    def open_trace(path):
        f = _open_output(path, "--trace")
        files.append(f)
        return JsonLinesSink(f)
    if args.trace:
        from .replay import TraceFile  # named from the trace's folder, as `lfdsl replay` reads them
        files.append(_open_output(args.trace, "--trace"))
        sinks.append(TraceFile(files[-1], args.trace))
    if args.trace_per_player:
        folder = Path(args.trace_per_player)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make the folder {folder}: {exc.strerror}") from None
        for p in range(players):
            sinks.append(engine.player_sink(p, open_trace(folder / f"P{p + 1}.jsonl")))

    def sink(event):
        for s in sinks:
            s(event)
    try:
        print(visible(f"{engine.model.game.name}: {count_of(players, 'player')}, seed {args.seed}, agents {args.agents}"))
        st = engine.new_game(players, args.seed, sink=sink)
        try:
            play(engine, st, agents, sink)
        except LimitError as exc:
            names = sorted({a.name for a in agents if a.name != "random"})
            if not names:
                raise
            which = ", ".join(f"`{n}`" for n in names)
            raise AgentFailure(exc, f"the {'agent' if len(names) == 1 else 'agents'} {which} could not finish "
                                    f"this game ({exc.diagnostic.message}): their choices never end it, the "
                                    "bot's failure, not the rules'; play it with other agents "
                                    "(`--agents random` or `mcts`)") from None
    finally:
        for f in files:
            f.close()
    if args.quiet:
        for line in result_lines(st.result):
            print(visible(line))
    print(f"{st.decisions} decisions, {st.round} rounds")
    return EXIT_OK


def _lab():
    """The lab's modules (a missing library is named by `main` with the extra that brings it)."""
    from .lab import figures, games, show
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
    for t in show.tables(data, title):
        out.print(t)
    where = f"the cluster at {args.cluster}" if args.cluster else count_of(min(args.workers, args.games), "worker")
    out.print(f"{(data['games'] - data['lost']) / seconds:.1f} games/s on {where} ({seconds:.1f} s)")
    if args.json:
        _write_json(args.json, {"ruleset": args.ruleset, "players": players, "agents": args.agents,
                                "seed": args.seed, "set": {k: str(v) for k, v in _params(args.set).items()}, **data})
    if args.report:
        from .lab import report
        _write_text(args.report, report.simulation(f"{g.name}: simulation", f"{args.ruleset}; {title}", data, records))
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
    if args.json:
        _write_json(args.json, {"ruleset": args.ruleset, "players": players, "agents": args.agents, "seed": args.seed,
                                "set": {k: str(v) for k, v in _params(args.set).items()},
                                "sweep": {"param": name, "values": values}, "runs": runs})
    if args.report:
        from .lab import report
        _write_text(args.report, report.sweep(f"{g.name}: sweep of {name}", f"{args.ruleset}; {count_of(players, 'player')}, "
                                              f"{count_of(args.games, 'game')} per value, agents {args.agents}", name, runs))
    return _lost(figures, played)


def cmd_tune(args) -> int:
    from .lab import tune
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
        from .lab.games import cluster_address
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
    from .lab.compare import ALPHA, CORRECTION, SHORT, compare
    b_seed = args.seed if args.seed_b is None else args.seed_b
    err = show.console(stderr=True)
    a_records = _run_games(show, games, a, players, args, args.seed, "A", err)
    b_records = _run_games(show, games, b, players, args, b_seed, "B", err)
    # Games lost with a cluster's workers are left out of the tests, not counted as unfinished.
    rows = compare(_played(a_records), _played(b_records), players)

    def name(path, params):
        return path + "".join(f" {k}={v}" for k, v in params.items())
    a_name, b_name = name(args.ruleset, a_set), name(b_path, b_set)
    seeds = (f"the same seeds ({args.seed} to {args.seed + args.games - 1})" if b_seed == args.seed else
             f"seeds {args.seed}.. for A and {b_seed}.. for B")
    out = show.console()
    out.print(f"A: {a_name}\nB: {b_name}\n{count_of(players, 'player')}, {count_of(args.games, 'game')} each, "
              f"{seeds}, agents {args.agents}")
    for part in show.comparison(rows, "Figures (B - A; p-values of two-sided tests)", SHORT):
        out.print(part)
    out.print(f"Significant at {ALPHA:.0%} after {CORRECTION.split(' (')[0]}'s correction over the "
              f"{sum(r['p'] is not None for r in rows)} figures tested: "
              f"{sum(r['significant'] for r in rows) or 'none'}.")
    if args.json:
        _write_json(args.json, {
            "players": players, "agents": args.agents, "games": args.games, "alpha": ALPHA, "correction": CORRECTION,
            "a": {"ruleset": args.ruleset, "set": a_set, "seed": args.seed, **figures.summarize(a_records, players)},
            "b": {"ruleset": b_path, "set": b_set, "seed": b_seed, **figures.summarize(b_records, players)},
            "tests": rows})
    if args.report:
        from .lab import report
        fa, fb = figures.summarize(a_records, players), figures.summarize(b_records, players)
        _write_text(args.report, report.comparison(
            f"A: {a_name} against B: {b_name}", f"{count_of(players, 'player')}, {count_of(args.games, 'game')} "
            f"each, {seeds}, agents {args.agents}", ("A", fa, a_records), ("B", fb, b_records), rows, SHORT))
    return _lost(figures, a_records + b_records)


def cmd_tournament(args) -> int:
    import json

    from .bots import parse_agents
    engine = _load(args)
    g = engine.model.game
    players = _players_for(engine, args.players, 2, max(2, g.min_players))
    _seeds_fit("--seed", args.seed, args.games)
    specs = parse_agents(args.bots, "--bots")
    if not 2 <= len(specs) <= opt.MAX_BOTS:
        raise opt.at("--bots", args.bots, f"a tournament takes 2 to {opt.MAX_BOTS} bots, not {len(specs)}",
                     "`--bots mcts,random`" if len(specs) < 2 else None)
    bots = [s.text for s in specs]
    _lab()  # the tournament's table is the lab's: without it, the missing extra is named before any game
    from .lab.tournament import table, tournament
    print(visible(f"{g.name}: {count_of(players, 'player')}, {count_of(args.games, 'game')} per pair, "
                  f"seeds from {args.seed}, seats alternated"))
    results = tournament(engine, bots, args.games, players, args.seed)
    for line in table(results):
        print(visible(line))
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"ruleset": args.ruleset, "players": players, "games": args.games, "seed": args.seed,
                           "bots": bots, "pairs": [r.to_json() for r in results]}, f, indent=2)
                f.write("\n")
        except OSError as exc:
            raise UsageError(f"cannot write {args.json}: {exc.strerror}") from None
    return EXIT_OK


def cmd_fit_eval(args) -> int:
    import json

    engine = _load(args)
    g = engine.model.game
    if engine.evaluation is None:
        raise UsageError(f"{args.ruleset} has no `evaluate` block: fit-eval weighs its named scores "
                         "(docs/agents.md, \"A ruleset's own evaluation\")")
    players = _players_for(engine, args.players)
    _seeds_fit("--seed", args.seed, args.games)
    _agents_for(args.agents, players, args.seed, engine)
    names = [name for name, _ in engine.evaluation[1]]
    if not names:
        raise UsageError(f"the `evaluate` block of {args.ruleset} names no score (`score NAME = ...`): "
                         "there is nothing to weigh")
    _, _, show = _lab()
    from .lab import evalfit
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
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"ruleset": args.ruleset, "agents": args.agents, "seed": args.seed, "every": args.every,
                           **result.to_json()}, f, indent=2)
                f.write("\n")
        except OSError as exc:
            raise UsageError(f"cannot write {args.json}: {exc.strerror}") from None
    return EXIT_OK


def cmd_explain(args) -> int:
    from rulesdsl import unparse
    from rulesdsl.checker import check
    from rulesdsl.layers import load_ruleset
    from rulesdsl.files import Project
    program = load_ruleset(args.ruleset, Project.around(args.ruleset, args.path or ()))
    check(program)
    print("# layers, lowest first")
    for i, layer in enumerate(program.layers, 1):
        below = f"  (extends {layer.extends})" if layer.extends else ""
        print(visible(f"# {i}. {layer.path}{below}"))
        if layer.extends is None:
            print(f"#      {len(layer.changes)} declarations")
            continue
        for c in layer.changes:
            name = f" {c.name}" if c.name else ""
            detail = f": {c.detail}" if c.detail else ""
            print(visible(f"#      {c.action} {c.what}{name}{detail}  ({c.span.path}:{c.span.line})"))
    print("#")
    print("# the effective ruleset")
    print()
    print(unparse.program(program.items), end="")
    return EXIT_OK


def _open_output(path, option: str):
    """A text file the command writes (a trace), or a usage error saying why it cannot be."""
    _no_nul(option, 1, path)
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the trace file {path}: {exc.strerror}") from None


def cmd_replay(args) -> int:
    from .records import shown
    from .replay import TraceFile, replay
    sinks = [] if args.quiet else [TextSink(print)]
    out = None
    if args.trace:
        if os.path.exists(args.trace) and os.path.exists(args.trace_file) and os.path.samefile(args.trace, args.trace_file):
            raise UsageError(f"--trace {args.trace} would write over the trace being replayed")
        out = _open_output(args.trace, "--trace")
        sinks.append(TraceFile(out, args.trace))

    def sink(event):
        for s in sinks:
            s(event)
    try:
        result = replay(args.trace_file, sink, search=_search(args))
    except LanguageError:
        if out is not None:  # the trace could not be replayed: no empty or partial copy is left
            out.close()
            os.remove(args.trace)
        raise
    finally:
        if out is not None:
            out.close()
    if result.identical:
        print(f"replayed {args.trace_file}: {result.events} events, identical byte for byte")
        return EXIT_OK
    print(f"replayed {args.trace_file}: differs from line {result.first_difference}")
    print(f"  trace:    {'(ends here)' if result.trace_line is None else shown(result.trace_line)}")
    print(f"  replayed: {'(ends here)' if result.replayed_line is None else shown(result.replayed_line)}")
    return EXIT_FAILED


def cmd_play(args) -> int:
    app = play_app(args)
    app.run()
    if app.failure is not None:
        # The table stopped on an exception: reported as any other command reports it (a game's
        # error, a save that cannot be written, or an internal error), never as success.
        raise app.failure
    if args.save:
        app.table.save(args.save)
    return EXIT_OK


def play_app(args):
    """The table `lfdsl play` opens for these arguments (its tests drive it with Textual's pilot)."""
    from .table.app import PlayApp  # Textual is loaded only for this command
    return PlayApp(open_table(args), args.save)


def open_table(args):
    """The game `lfdsl play` opens: the saved game of `--resume` played again to where it was, or a
    new one. Apart from the app so that the saved-game fuzzer loads a save exactly as `play` does."""
    from .bots import parse_agents
    from .table.session import Table
    if args.resume:
        table = Table.resume(args.resume, search=_search(args))
    elif args.ruleset is None:
        raise UsageError("play needs a ruleset, or --resume FILE")
    else:
        engine = _load(args)
        players = _players_for(engine, args.players)
        if not 1 <= args.seat <= players:
            raise opt.at("--seat", str(args.seat), f"--seat takes a seat from 1 to {players}, not {args.seat}")
        agents = args.agents
        specs = parse_agents(agents)
        humans = "human" in [s.name for s in specs]
        # with people named, one agent per seat (or `human` for all); else the bots of the other
        # seats, one bot for all of them, or one per seat with the person's replacing theirs
        if len(specs) not in ((1, players) if humans else (1, players - 1, players)):
            raise opt.at("--agents", agents, f"{count_of(len(specs), 'agent')} for {count_of(players, 'player')}",
                         "one agent per seat with `human` for each person, or the bots of the other seats")
        if not humans:
            bots = [s.text for s in specs]
            bots = bots * players if len(bots) == 1 else bots
            if len(bots) == players:
                bots[args.seat - 1] = "human"
            else:
                bots.insert(args.seat - 1, "human")
            agents = ",".join(bots)
        seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
        table = Table(engine, players, seed, agents)
    return table


def cmd_lsp(args) -> int:
    from .lsp import main as serve  # pygls is loaded only for this command
    return serve()


def cmd_test(args) -> int:
    engine = _load(args)
    failed = 0
    total = 0
    for path in args.scenarios:
        outcomes, runner = run_scenario(engine, path)
        bad = [o for o in outcomes if not o.ok]
        total += len(outcomes)
        failed += len(bad)
        status = "ok" if outcomes and not bad else "FAILED"
        print(f"{status}: {path} ({len(outcomes) - len(bad)}/{len(outcomes)} expectations)")
        for o in outcomes:
            if args.verbose or not o.ok:
                print(f"  {'pass' if o.ok else 'FAIL'}: {o.text}")
        if not outcomes:
            print("  FAIL: the scenario states no expectation")
            failed += 1
            total += 1
        if bad and args.verbose:
            print("  log:")
            for line in runner.log():
                print("    " + line)
    print(f"{total - failed} passed, {failed} failed")
    return EXIT_OK if failed == 0 else EXIT_FAILED


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lfdsl", description="Board-game rules as data.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp):
        sp.add_argument("ruleset", help="a .lf rules file")
        sp.add_argument("--cards", help="card database (default: the ruleset's `cards` line)")
        sp.add_argument("--set", action="append", metavar="NAME=VALUE", help="set a ruleset parameter")
        search(sp)

    def search(sp, what="the ruleset"):
        sp.add_argument("--path", action="append", metavar="DIR",
                        help=f"a folder {what} may also name files in (besides its project)")

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

    c = sub.add_parser("check", help="check a ruleset and its cards")
    common(c)
    c.set_defaults(func=cmd_check)
    r = sub.add_parser("run", help="play one game with bots")
    common(r)
    r.add_argument("--players", type=opt.PLAYERS)
    r.add_argument("--seed", type=opt.SEED, default=1)
    r.add_argument("--agents", default="random",
                   help="random, first, greedy or mcts (mcts:iterations=400,c=0.7), one for all or one per seat: a,b")
    r.add_argument("--trace", help="write the JSON Lines trace to this file")
    r.add_argument("--quiet", action="store_true", help="print only the result")
    r.add_argument("--full-state", action="store_true", help="print the whole state at each round")
    r.add_argument("--view", metavar="PLAYER", help="print the game as this player (P1, P2...) saw it")
    r.add_argument("--trace-per-player", metavar="DIR",
                   help="write one JSON Lines trace per player, as that player saw the game, to DIR/P1.jsonl...")
    r.set_defaults(func=cmd_run)
    tr = sub.add_parser("tournament", help="play every pair of bots over N games and print their win rates")
    common(tr)
    tr.add_argument("--bots", required=True, help="two or more agents: mcts,greedy,random")
    tr.add_argument("--games", type=opt.GAMES, default=20, help="games per pair (default 20)")
    tr.add_argument("--players", type=opt.PLAYERS)
    tr.add_argument("--seed", type=opt.SEED, default=1, help="the first game's seed")
    tr.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    tr.set_defaults(func=cmd_tournament)
    fe = sub.add_parser("fit-eval", help="check the ruleset's evaluation: which of its scores predict the winner")
    common(fe)
    fe.add_argument("--players", type=opt.PLAYERS)
    # the intervals are by game: one game is no sample of games
    fe.add_argument("--games", type=opt.number("--games", 2, opt.MAX_GAMES), default=200,
                    help="games to play (default 200, at least 2)")
    fe.add_argument("--agents", default="greedy", help="the agents that play them (default greedy)")
    fe.add_argument("--seed", type=opt.SEED, default=1, help="the first game's seed")
    fe.add_argument("--every", type=opt.EVERY, default=3, help="keep a position every N decisions (default 3)")
    fe.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    fe.set_defaults(func=cmd_fit_eval)
    sm = sub.add_parser("simulate", help="play many games with bots and print what they show, with intervals")
    common(sm)
    many_games(sm, "games to play (default 100)", "the first game's seed; game g has seed+g",
               "also write the figures as JSON")
    sm.add_argument("--sweep", metavar="NAME=LO..HI", help="simulate every value of a parameter (or NAME=V1,V2,...)")
    sm.set_defaults(func=cmd_simulate)
    cp = sub.add_parser("compare", help="simulate two rulesets (or one with two --set sets) and test every difference")
    cp.add_argument("ruleset", help="ruleset A")
    cp.add_argument("ruleset_b", nargs="?", metavar="ruleset-b", help="ruleset B (default: A, with --set-b)")
    cp.add_argument("--cards", help="card database for both (default: each ruleset's `cards` lines)")
    cp.add_argument("--set", action="append", metavar="NAME=VALUE", help="a parameter for both")
    cp.add_argument("--set-a", action="append", metavar="NAME=VALUE", help="a parameter for A only")
    cp.add_argument("--set-b", action="append", metavar="NAME=VALUE", help="a parameter for B only")
    search(cp)
    many_games(cp, "games on each side (default 100)", "the first game's seed, on both sides",
               "also write both sides' figures and the tests as JSON")
    cp.add_argument("--seed-b", type=opt.SEED_B, help="B's first seed, when B should not replay A's seeds")
    cp.set_defaults(func=cmd_compare)
    tu = sub.add_parser("tune", help="search the ruleset's parameters for a target (Optuna)")
    common(tu)
    tu.add_argument("--param", action="append", required=True, metavar="NAME=LO..HI",
                    help="a parameter to search, whole numbers LO..HI or values V1,V2,... (repeatable)")
    tu.add_argument("--target", required=True, help="`seat win rates equal` or `median rounds N`")
    tu.add_argument("--trials", type=opt.TRIALS, default=20, help="settings tried (default 20)")
    many_games(tu, "games per trial (default 100)", "the first game's seed, and the sampler's",
               "also write every trial and the result as JSON", report=False)
    tu.set_defaults(func=cmd_tune)
    x = sub.add_parser("explain", help="print the effective ruleset after layering, and what each layer changed")
    x.add_argument("ruleset", help="a .lf rules file")
    search(x)
    x.set_defaults(func=cmd_explain)
    y = sub.add_parser("replay", help="replay a game from its JSON Lines trace and compare, byte for byte")
    y.add_argument("trace_file", metavar="TRACE", help="a trace written by `lfdsl run --trace`")
    y.add_argument("--trace", help="also write the replayed trace to this file")
    y.add_argument("--quiet", action="store_true", help="print only the comparison")
    search(y, "the trace")
    y.set_defaults(func=cmd_replay)
    pl = sub.add_parser("play", help="play a game at the terminal against bots (docs/play.md)")
    pl.add_argument("ruleset", nargs="?", help="a .lf rules file (not needed with --resume)")
    pl.add_argument("--cards", help="card database (default: the ruleset's `cards` line)")
    pl.add_argument("--set", action="append", metavar="NAME=VALUE", help="set a ruleset parameter")
    search(pl, "the ruleset or the saved game")
    pl.add_argument("--players", type=opt.PLAYERS)
    pl.add_argument("--seed", type=opt.SEED, default=None, help="the game's seed (default: a new one)")
    pl.add_argument("--seat", type=opt.SEAT, default=1, help="your seat, from 1 (default 1)")
    pl.add_argument("--agents", default="random",
                    help="the bots at the other seats, or one agent per seat with `human` for each person "
                         "(human,mcts; human,human for two people at one terminal)")
    pl.add_argument("--save", metavar="FILE", help="where `s` and leaving save the game (default lfdsl-save.json)")
    pl.add_argument("--resume", metavar="FILE", help="go on with a saved game")
    pl.set_defaults(func=cmd_play)
    ls = sub.add_parser("lsp", help="serve the language server for .lf files on stdin/stdout (docs/editors.md)")
    ls.set_defaults(func=cmd_lsp)
    t = sub.add_parser("test", help="run scenario files")
    common(t)
    t.add_argument("scenarios", nargs="+")
    t.add_argument("-v", "--verbose", action="store_true")
    t.set_defaults(func=cmd_test)
    return p


def _silence_stdout():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# the extra each command needs beyond lfdsl itself (pyproject.toml), named when a library is missing
EXTRA_OF_COMMAND = {"simulate": "lab", "compare": "lab", "tournament": "lab", "fit-eval": "lab", "tune": "tune",
                    "play": "play", "lsp": "lsp"}


def summary(diagnostics) -> str:
    """`2 error(s)`, with `, 1 warning(s)` when some of the diagnostics are warnings."""
    warnings = sum(1 for d in diagnostics if d.severity == "warning")
    out = f"{len(diagnostics) - warnings} error(s)"
    return out + (f", {warnings} warning(s)" if warnings else "")


def main(argv=None) -> int:
    """Entry point of the `lfdsl` command."""
    try:
        args = build_parser().parse_args(argv)
    except OptionError as exc:  # raised by an option's type, through argparse
        print(exc.render(), file=sys.stderr)
        print(f"lfdsl: {summary(exc.diagnostics)} ({exc.step})", file=sys.stderr)
        return EXIT_STATIC
    return run_command(args.func, args)


def run_command(func, args) -> int:
    """`func(args)` with every error reported as `lfdsl` reports it; the exit code. The fuzzer calls
    it too, so a step run outside `main` is judged by the very messages a user would read."""
    try:
        code = func(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader went away (`lfdsl run ... | head`): that is not an error. Later writes and the
        # interpreter's own flush at exit go to devnull, so nothing more is reported.
        _silence_stdout()
        return EXIT_OK
    except LanguageError as exc:
        print(exc.render(), file=sys.stderr)
        print(f"lfdsl: {summary(exc.diagnostics)} ({exc.step})", file=sys.stderr)
        return EXIT_STATIC
    except UsageError as exc:
        print(visible(f"lfdsl: {exc}"), file=sys.stderr)
        return EXIT_STATIC
    except AgentFailure as exc:
        print(visible(f"lfdsl: {exc}"), file=sys.stderr)
        return EXIT_RUNTIME
    except Incomplete as exc:
        print(visible(f"lfdsl: {exc}"), file=sys.stderr)
        return EXIT_INCOMPLETE
    except InternalError as exc:
        print(f"{exc}", file=sys.stderr)
        print("lfdsl: internal error (a fault of lfdsl, not of the ruleset)", file=sys.stderr)
        return EXIT_INTERNAL
    except GameError as exc:
        print(f"{exc}", file=sys.stderr)
        print("lfdsl: the game stopped with an error", file=sys.stderr)
        return EXIT_RUNTIME
    except OSError as exc:  # the host's own files: a trace that cannot be written, a full disk
        print(f"lfdsl: cannot write the output: {exc.strerror or 'input/output error'}", file=sys.stderr)
        return EXIT_STATIC
    except KeyboardInterrupt:
        print("lfdsl: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:
        extra = missing_extra(exc.name, EXTRA_OF_COMMAND.get(args.command))
        if extra is None:  # a module of lfdsl itself, or one its extras do not bring: a fault
            return _internal(exc)
        print(f"lfdsl: `lfdsl {args.command}` needs the optional extra `{extra}` ({exc.name.split('.')[0]} is "
              f"not installed): {install_hint(extra)}", file=sys.stderr)
        return EXIT_STATIC
    except Exception as exc:  # a defect of lfdsl: said plainly, never as a traceback
        return _internal(exc)


def _internal(exc: Exception) -> int:
    if os.environ.get("LFDSL_DEBUG"):
        raise exc
    print(f"lfdsl: internal error ({type(exc).__name__}: {exc}); this is a fault of lfdsl, not of "
          "your files: please report it with the command that caused it (LFDSL_DEBUG=1 shows "
          "the details)", file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
