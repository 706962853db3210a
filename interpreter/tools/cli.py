"""`lfdsl`: the core commands (check a ruleset, run a game, run scenarios, replay a trace, explain
the layers), the rooms' commands collected from them (`lab/cli.py`, `table/cli.py`: each adds its own
with `register`), and the reporting every command shares (`run_command`). Only the command line
(this module and those) prints or writes files.

Exit codes, as `main` and `run_command` return them:
  0    success; also a closed standard output (`lfdsl run ... | head`) and `--help`
  1    `lfdsl test`: a scenario expectation failed, or a scenario states none; `lfdsl replay`: the
       replayed game differs from the trace; `lfdsl lsp`: `exit` came without `shutdown`
  2    a static error: the ruleset, cards, parameters, a scenario, trace or saved game, or the
       command line is wrong (an option argparse or its bounds refuse); a file the command writes
       cannot be written; the command needs an optional extra that is not installed; `lfdsl lsp`:
       a malformed message from the client
  3    the game stopped with an error while running (a rule looped or could not run), or the
       bots could not finish it
  4    an internal error of lfdsl, never caused by the files (a missing module counts as one when
       no extra of lfdsl brings it)
  5    games were lost with a cluster's workers (`simulate` and `compare` show what was played;
       `tune` stops)
  130  interrupted (Ctrl-C)
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rulesdsl.errors import LanguageError, count_of, player_range, visible

from . import options as opt
from .agents import play
from .commands import (EXIT_FAILED, EXIT_INCOMPLETE, EXIT_INTERNAL, EXIT_OK, EXIT_RUNTIME, EXIT_STATIC,
                       Incomplete, UsageError, _agents_for, _load, _no_nul, _players_for, _search, add_common,
                       add_search)
from ..engine import GameError, InternalError, LimitError
from .extras import install_hint, missing_extra
from ..lab import cli as lab_cli
from .options import OptionError
from .scenario import run_scenario
from ..table import cli as table_cli
from ..studio import cli as studio_cli
from ..table.cli import open_table, play_app  # noqa: F401  (the tests open the table as `play` does)
from .trace import JsonLinesSink, TextSink, result_lines


class AgentFailure(Exception):
    """Bots that cannot finish a game (a deterministic bot looping until the game's limit)."""

    def __init__(self, error: GameError, message: str):
        super().__init__(message)
        self.error = error


def cmd_check(args) -> int:
    engine = _load(args)
    m = engine.model
    if m.warnings:  # the rules check and run: the warnings go where errors go, and the exit stays 0
        for w in m.warnings:
            print(w.render(), file=sys.stderr)
        print(f"lfdsl: {summary(m.warnings)} (check)", file=sys.stderr)
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
    if st.hand:
        print(f"{st.decisions} decisions, {st.hand} hands, {st.round} rounds in the last")
    else:
        print(f"{st.decisions} decisions, {st.round} rounds")
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
    # Each room adds its own commands (its `register`), where `lfdsl --help` has always listed them.
    c = sub.add_parser("check", help="check a ruleset and its cards")
    add_common(c)
    c.set_defaults(func=cmd_check)
    r = sub.add_parser("run", help="play one game with bots")
    add_common(r)
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
    lab_cli.register(sub)
    x = sub.add_parser("explain", help="print the effective ruleset after layering, and what each layer changed")
    x.add_argument("ruleset", help="a .lf rules file")
    add_search(x)
    x.set_defaults(func=cmd_explain)
    y = sub.add_parser("replay", help="replay a game from its JSON Lines trace and compare, byte for byte")
    y.add_argument("trace_file", metavar="TRACE", help="a trace written by `lfdsl run --trace`")
    y.add_argument("--trace", help="also write the replayed trace to this file")
    y.add_argument("--quiet", action="store_true", help="print only the comparison")
    add_search(y, "the trace")
    y.set_defaults(func=cmd_replay)
    table_cli.register(sub)
    studio_cli.register(sub)
    ls = sub.add_parser("lsp", help="serve the language server for .lf files on stdin/stdout (docs/editors.md)")
    ls.set_defaults(func=cmd_lsp, extra="lsp")
    t = sub.add_parser("test", help="run scenario files")
    add_common(t)
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
        extra = missing_extra(exc.name, getattr(args, "extra", None))
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
