"""`lfdsl`: check a ruleset, run a game, run scenarios. Only this module prints or writes files.

Exit codes: 0 success; 1 a scenario expectation failed; 2 the ruleset, cards, scenario or command
line is wrong (static error); 3 the game failed while running (a rule looped or could not run);
4 an internal error of lfdsl; 5 games were lost with a cluster's workers (what was played is shown).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from rulesdsl.errors import Diagnostic, LanguageError, count_of, player_range, suggest

from .agents import make_agents, play
from .engine import Engine, GameError, InternalError, LimitError
from .params import ParamError
from .scenario import run_scenario
from .view import PlayerSink
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
    """A command-line value that cannot be used (an unknown agent, a player count out of range)."""


def whole_number(text: str) -> int:
    """An argparse type: ASCII digits with an optional minus, nothing else (no `+3`, `٣`, `1_000`)."""
    if not re.fullmatch(r"-?[0-9]+", text):
        raise ValueError(text)
    return int(text)


whole_number.__name__ = "whole number"  # argparse says "invalid whole number value: 'x'"


def _params(pairs) -> dict:
    out = {}
    for n, pair in enumerate(pairs or [], 1):
        if "=" not in pair:
            raise ParamError([Diagnostic("--set", n, len(pair) + 1, "`--set` takes name=value",
                                         f"write `--set {pair or 'name'}=value`", pair)])
        k, v = pair.split("=", 1)
        out[k] = v  # as typed: the engine shows the argument and refuses a value with spaces
    return out


def _load(args, more: dict | None = None, ruleset=None) -> Engine:
    """The engine of the command's ruleset (or `ruleset`), its `--set` parameters and `more`."""
    return Engine.load(ruleset or args.ruleset, getattr(args, "cards", None),
                       {**_params(getattr(args, "set", None)), **(more or {})}, search=tuple(args.path or ()))


def cmd_check(args) -> int:
    engine = _load(args)
    m = engine.model
    routines = sum(1 for a in m.actions.values() if a.routine)
    print(f"{args.ruleset}: ok: {m.game.name}, {player_range(m.game.min_players, m.game.max_players)}, "
          f"{count_of(len(engine.cards.defs), 'card definition')}, {count_of(len(m.actions) - routines, 'action')}, "
          f"{count_of(routines, 'routine')}, {count_of(len(m.round.phases), 'phase')}")
    return EXIT_OK


def _seat(text: str, players: int) -> int:
    """A seat from 0, from `P2` or `2`."""
    t = text.strip().upper().removeprefix("P")
    if not t.isdigit() or not 1 <= int(t) <= players:
        raise UsageError(f"--view takes a player from P1 to P{players}, not `{text}`")
    return int(t) - 1


def cmd_run(args) -> int:
    engine = _load(args)
    players = args.players if args.players is not None else engine.model.game.default_players
    g = engine.model.game
    if not g.min_players <= players <= g.max_players:
        raise UsageError(f"{g.name} is played by {player_range(g.min_players, g.max_players)}, not {players}")
    try:
        agents = make_agents(args.agents, players, args.seed, engine=engine)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    sinks = []
    files = []
    viewer = _seat(args.view, players) if args.view else None
    if not args.quiet:
        text = TextSink(print, full_state=args.full_state)
        sinks.append(text if viewer is None else PlayerSink(engine.program, viewer, text))

    def open_trace(path):
        try:
            f = open(path, "w", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write the trace file {path}: {exc.strerror}") from None
        files.append(f)
        return JsonLinesSink(f)
    if args.trace:
        sinks.append(open_trace(args.trace))
    if args.trace_per_player:
        folder = Path(args.trace_per_player)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make the folder {folder}: {exc.strerror}") from None
        for p in range(players):
            sinks.append(PlayerSink(engine.program, p, open_trace(folder / f"P{p + 1}.jsonl")))

    def sink(event):
        for s in sinks:
            s(event)
    try:
        print(f"{engine.model.game.name}: {count_of(players, 'player')}, seed {args.seed}, agents {args.agents}")
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
            print(line)
    print(f"{st.decisions} decisions, {st.round} rounds")
    return EXIT_OK


def _lab():
    """The lab's modules, or a usage error saying how to install them."""
    try:
        from .lab import figures, games, show
    except ImportError as exc:
        raise UsageError(f"this command needs the lab extra ({exc.name} is not installed): "
                         "pip install 'lfdsl[lab]'") from None
    return figures, games, show


def _sweep_values(text: str, engine, option: str = "--sweep") -> tuple[str, list[str]]:
    """`NAME=LO..HI` (whole numbers) or `NAME=V1,V2,...`: the parameter and its values, as typed."""
    def bad(col, message, hint=None):
        raise ParamError([Diagnostic(option, 1, col, message, hint, text)])
    if "=" not in text:
        bad(len(text) + 1, f"`{option}` takes name=LO..HI or name=V1,V2,...", f"write `{option} {text or 'name'}=8..14`")
    name, spec = text.split("=", 1)
    if name not in engine.program.params:
        bad(1, f"the ruleset has no parameter `{name}`", suggest(name, engine.program.params))
    m = re.fullmatch(r"(-?[0-9]+)\.\.(-?[0-9]+)", spec)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi < lo:
            bad(len(name) + 2, f"the range {spec} is empty", f"write `{name}={hi}..{lo}`")
        if hi - lo >= 100:
            bad(len(name) + 2, f"the range {spec} has {hi - lo + 1} values; a sweep takes at most 100")
        return name, [str(v) for v in range(lo, hi + 1)]
    values = spec.split(",")
    if not all(values):
        bad(len(name) + 2, "a value of the sweep is empty", "write `name=LO..HI` or `name=V1,V2,...`")
    return name, values


def cmd_simulate(args) -> int:
    import time

    figures, games, show = _lab()
    if args.sweep:
        return _simulate_sweep(args, figures, games, show)
    engine = _load(args)
    g = engine.model.game
    players = _players_for(engine, args.players)
    _check_counts(args)
    make_agents(args.agents, players, args.seed, engine=engine)  # a mistake is reported before any game
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


def _simulate_sweep(args, figures, games, show) -> int:
    engine = _load(args)
    name, values = _sweep_values(args.sweep, engine)
    players = _players_for(engine, args.players)
    _check_counts(args)
    make_agents(args.agents, players, args.seed, engine=engine)
    err, runs, played = show.console(stderr=True), [], []
    # every value is loaded, and so checked, before any game is played
    engines = [_load(args, {name: value}) for value in values]
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
    figures, games, show = _lab()
    try:
        from .lab import tune
    except ImportError as exc:
        raise UsageError(f"lfdsl tune needs the tune extra ({exc.name} is not installed): "
                         "pip install 'lfdsl[tune]'") from None
    engine = _load(args)
    g = engine.model.game
    try:
        target = tune.parse_target(args.target)
    except tune.TargetError:
        raise ParamError([Diagnostic("--target", 1, 1, f"no target `{args.target}`",
                                     "the targets: " + "; ".join(f"`{t}`" for t in tune.TARGETS), args.target)]) from None
    space = {}
    for text in args.param:
        name, values = _sweep_values(text, engine, "--param")
        if name in space:
            raise ParamError([Diagnostic("--param", 1, 1, f"`{name}` is given twice", None, text)])
        ranged = re.fullmatch(r"[^=]+=-?[0-9]+\.\.-?[0-9]+", text)
        space[name] = (int(values[0]), int(values[-1])) if ranged else values
    players = _players_for(engine, args.players)
    _check_counts(args)
    if args.trials < 1:
        raise UsageError(f"--trials must be at least 1, not {args.trials}")
    make_agents(args.agents, players, args.seed, engine=engine)
    fixed = _params(args.set)
    for name, values in space.items():  # every value a trial may take is checked before any game
        for v in ([str(values[0]), str(values[1])] if isinstance(values, tuple) else values):
            _load(args, {name: v})
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


def _players_for(engine, wanted):
    g = engine.model.game
    players = wanted if wanted is not None else g.default_players
    if not g.min_players <= players <= g.max_players:
        raise UsageError(f"{g.name} is played by {player_range(g.min_players, g.max_players)}, not {players}")
    return players


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


def _check_counts(args) -> None:
    if args.cluster:
        from .lab.games import cluster_address
        wrong = cluster_address(args.cluster)
        if wrong:
            raise ParamError(wrong)
        import importlib.util
        if importlib.util.find_spec("distributed") is None:
            raise UsageError("--cluster needs the cluster extra (dask distributed): pip install 'lfdsl[cluster]'")
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    if args.workers is None:
        args.workers = os.cpu_count() or 1
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, not {args.workers}")


def cmd_compare(args) -> int:
    figures, games, show = _lab()
    from .lab.compare import ALPHA, CORRECTION, SHORT, compare
    _check_counts(args)
    both = _params(args.set)
    a_set, b_set = {**both, **_params(args.set_a)}, {**both, **_params(args.set_b)}
    b_path = args.ruleset_b or args.ruleset
    a = _load(args, _params(args.set_a))
    b = _load(args, _params(args.set_b), b_path)
    players = _players_for(a, args.players)
    _players_for(b, players)
    make_agents(args.agents, players, args.seed, engine=a)
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
    _lab()
    from .lab.tournament import table, tournament
    engine = _load(args)
    g = engine.model.game
    players = args.players if args.players is not None else max(2, g.min_players)
    if not g.min_players <= players <= g.max_players or players < 2:
        raise UsageError(f"{g.name} is played by {player_range(g.min_players, g.max_players)}; "
                         f"a tournament needs at least 2, not {players}")
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    specs = parse_agents(args.bots, "--bots")
    if len(specs) < 2:
        raise UsageError("a tournament needs at least two bots: `--bots mcts,random`")
    bots = [s.text for s in specs]
    print(f"{g.name}: {count_of(players, 'player')}, {count_of(args.games, 'game')} per pair, seeds from {args.seed}, "
          f"seats alternated")
    results = tournament(engine, bots, args.games, players, args.seed)
    for line in table(results):
        print(line)
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

    _, _, show = _lab()
    from .lab import evalfit
    engine = _load(args)
    g = engine.model.game
    if engine.program.evaluation is None:
        raise UsageError(f"{args.ruleset} has no `evaluate` block: fit-eval weighs its named scores "
                         "(docs/agents.md, \"A ruleset's own evaluation\")")
    players = args.players if args.players is not None else g.default_players
    if not g.min_players <= players <= g.max_players:
        raise UsageError(f"{g.name} is played by {player_range(g.min_players, g.max_players)}, not {players}")
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    if args.every < 1:
        raise UsageError(f"--every must be at least 1, not {args.every}")
    try:
        make_agents(args.agents, players, args.seed, engine=engine)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    names = [name for name, _ in engine.program.evaluation[1]]
    if not names:
        raise UsageError(f"the `evaluate` block of {args.ruleset} names no score (`score NAME = ...`): "
                         "there is nothing to weigh")
    print(f"{g.name}: {count_of(players, 'player')}, {count_of(args.games, 'game')} with agents {args.agents}, "
          f"seeds from {args.seed}, a position every {count_of(args.every, 'decision')}")
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
        print(f"# {i}. {layer.path}{below}")
        if layer.extends is None:
            print(f"#      {len(layer.changes)} declarations")
            continue
        for c in layer.changes:
            name = f" {c.name}" if c.name else ""
            detail = f": {c.detail}" if c.detail else ""
            print(f"#      {c.action} {c.what}{name}{detail}  ({c.span.path}:{c.span.line})")
    print("#")
    print("# the effective ruleset")
    print()
    print(unparse.program(program.items), end="")
    return EXIT_OK


def cmd_replay(args) -> int:
    from .replay import replay
    result = replay(args.trace_file, None if args.quiet else TextSink(print))
    if args.trace:
        try:
            with open(args.trace, "w", encoding="utf-8") as f:
                f.write(result.replayed)
        except OSError as exc:
            raise UsageError(f"cannot write the trace file {args.trace}: {exc.strerror}") from None
    if result.identical:
        print(f"replayed {args.trace_file}: {result.events} events, identical byte for byte")
        return EXIT_OK
    n = result.first_difference
    old = result.original.splitlines()
    new = result.replayed.splitlines()
    print(f"replayed {args.trace_file}: differs from line {n}")
    print(f"  trace:    {old[n - 1] if n <= len(old) else '(ends here)'}")
    print(f"  replayed: {new[n - 1] if n <= len(new) else '(ends here)'}")
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
    from .bots import parse_agents
    from .table.app import PlayApp  # Textual is loaded only for this command
    from .table.session import Table
    if args.resume:
        table = Table.resume(args.resume)
    elif args.ruleset is None:
        raise UsageError("play needs a ruleset, or --resume FILE")
    else:
        engine = _load(args)
        game = engine.model.game
        players = args.players or game.default_players
        if not game.min_players <= players <= game.max_players:
            raise UsageError(f"{game.name} is played by {player_range(game.min_players, game.max_players)}, not {players}")
        if not 1 <= args.seat <= players:
            raise UsageError(f"--seat takes a seat from 1 to {players}, not {args.seat}")
        agents = args.agents
        if "human" not in [s.name for s in parse_agents(agents)]:
            bots = [s.text for s in parse_agents(agents)]
            bots = bots * players if len(bots) == 1 else bots
            if len(bots) == players:
                bots[args.seat - 1] = "human"
            else:
                bots.insert(args.seat - 1, "human")
            agents = ",".join(bots)
        seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
        table = Table(engine, players, seed, agents)
    return PlayApp(table, args.save)


def cmd_lsp(args) -> int:
    from .lsp import main as serve  # pygls is loaded only for this command
    serve()
    return EXIT_OK


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

    def search(sp):
        sp.add_argument("--path", action="append", metavar="DIR",
                        help="a folder the ruleset may also name files in (besides its project)")

    def many_games(sp, games_help, seed_help, json_help, report=True):
        """The options of the commands that play many games: simulate, compare, tune."""
        sp.add_argument("--players", type=whole_number)
        sp.add_argument("--games", type=whole_number, default=100, help=games_help)
        sp.add_argument("--agents", default="greedy",
                        help="one agent for every seat or one per seat (default greedy; docs/agents.md)")
        sp.add_argument("--seed", type=whole_number, default=1, help=seed_help)
        sp.add_argument("--workers", type=whole_number, help="processes to play on (default: every core)")
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
    r.add_argument("--players", type=whole_number)
    r.add_argument("--seed", type=whole_number, default=1)
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
    tr.add_argument("--games", type=whole_number, default=20, help="games per pair (default 20)")
    tr.add_argument("--players", type=whole_number)
    tr.add_argument("--seed", type=whole_number, default=1, help="the first game's seed")
    tr.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    tr.set_defaults(func=cmd_tournament)
    fe = sub.add_parser("fit-eval", help="check the ruleset's evaluation: which of its scores predict the winner")
    common(fe)
    fe.add_argument("--players", type=whole_number)
    fe.add_argument("--games", type=whole_number, default=200, help="games to play (default 200)")
    fe.add_argument("--agents", default="greedy", help="the agents that play them (default greedy)")
    fe.add_argument("--seed", type=whole_number, default=1, help="the first game's seed")
    fe.add_argument("--every", type=whole_number, default=3, help="keep a position every N decisions (default 3)")
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
    cp.add_argument("--seed-b", type=whole_number, help="B's first seed, when B should not replay A's seeds")
    cp.set_defaults(func=cmd_compare)
    tu = sub.add_parser("tune", help="search the ruleset's parameters for a target (Optuna)")
    common(tu)
    tu.add_argument("--param", action="append", required=True, metavar="NAME=LO..HI",
                    help="a parameter to search, whole numbers LO..HI or values V1,V2,... (repeatable)")
    tu.add_argument("--target", required=True, help="`seat win rates equal` or `median rounds N`")
    tu.add_argument("--trials", type=whole_number, default=20, help="settings tried (default 20)")
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
    y.set_defaults(func=cmd_replay)
    pl = sub.add_parser("play", help="play a game at the terminal against bots (docs/play.md)")
    pl.add_argument("ruleset", nargs="?", help="a .lf rules file (not needed with --resume)")
    pl.add_argument("--cards", help="card database (default: the ruleset's `cards` line)")
    pl.add_argument("--set", action="append", metavar="NAME=VALUE", help="set a ruleset parameter")
    search(pl)
    pl.add_argument("--players", type=int)
    pl.add_argument("--seed", type=int, default=None, help="the game's seed (default: a new one)")
    pl.add_argument("--seat", type=int, default=1, help="your seat, from 1 (default 1)")
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


def summary(diagnostics) -> str:
    """`2 error(s)`, with `, 1 warning(s)` when some of the diagnostics are warnings."""
    warnings = sum(1 for d in diagnostics if d.severity == "warning")
    out = f"{len(diagnostics) - warnings} error(s)"
    return out + (f", {warnings} warning(s)" if warnings else "")


def main(argv=None) -> int:
    """Entry point of the `lfdsl` command."""
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
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
        print(f"lfdsl: {exc}", file=sys.stderr)
        return EXIT_STATIC
    except AgentFailure as exc:
        print(f"lfdsl: {exc}", file=sys.stderr)
        return EXIT_RUNTIME
    except Incomplete as exc:
        print(f"lfdsl: {exc}", file=sys.stderr)
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
    except Exception as exc:  # a defect of lfdsl: said plainly, never as a traceback
        if os.environ.get("LFDSL_DEBUG"):
            raise
        print(f"lfdsl: internal error ({type(exc).__name__}: {exc}); this is a fault of lfdsl, not of "
              "your files: please report it with the command that caused it (LFDSL_DEBUG=1 shows "
              "the details)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
