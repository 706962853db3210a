"""What the `lfdsl` commands share, the core's (cli.py) and the rooms' (`lab/cli.py`,
`table/cli.py`): the exit codes, the errors a command stops with, and loading the command's ruleset
with its common options. Apart from cli.py, which collects the rooms' commands: a room imports these
without importing cli.py, so no import goes round in a circle, and `python -m interpreter.tools.cli` (run
as `__main__`) never loads a second cli.py whose error classes its own `run_command` would not catch.
"""
from __future__ import annotations

from rulesdsl.errors import Diagnostic, LanguageError, count_of, player_range, visible
from rulesdsl.files import NUL_REFUSED

from . import options as opt
from .agents import make_agents
from ..engine import Engine
from ..compile.params import ParamError, Typed

EXIT_OK, EXIT_FAILED, EXIT_STATIC, EXIT_RUNTIME, EXIT_INTERNAL, EXIT_INCOMPLETE = 0, 1, 2, 3, 4, 5


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


def _agents_for(text: str, players: int, seed: int, engine, option: str = "--agents", note=True) -> list:
    """The agents `text` seats, one for all or one per seat; a count that does not fit, or a person
    where only bots can play, is reported at the option. `note`: say on standard error which
    evaluation the bots use (False: not; a list of specifications: for those rather than these)."""
    from ..bots import parse_agents
    specs = parse_agents(text, option)
    if len(specs) not in (1, players):
        raise opt.at(option, text, f"{count_of(len(specs), 'agent')} for {count_of(players, 'player')}",
                     "give one agent for every seat, or one per seat separated by commas")
    if any(s.name == "human" for s in specs):
        raise opt.at(option, text, "`human` is a person at the table: play with `lfdsl play`, or give a bot here")
    judged = specs if note is True else note or []
    if engine is not None and any(s.name in ("greedy", "mcts") and (s.params.get("learned", 1) == 2 or (
            engine.evaluation is None and s.params.get("learned", 1) == 1)) for s in judged):
        _learned_note(engine, players)
    return make_agents(text, players, seed, engine=engine, option=option)


def _learned_note(engine, players: int) -> None:
    """Say on standard error what the bots go on in a ruleset without an `evaluate` block: a learned
    evaluation kept beside it, one that cannot be used (and why), or none."""
    import sys
    try:
        from ..bots import learned
    except ImportError:  # numpy comes with the lab's extra
        return
    path = learned.model_path(engine, players)
    if path is None:
        return
    model, why = learned.find(engine, players)
    if model is not None:
        print(visible(f"note: the bots use the learned evaluation {path}"), file=sys.stderr)
    elif why is not None:
        print(visible(f"note: the learned evaluation is not used:\n{why}\nthe bots read only the victory "
                      "thresholds"), file=sys.stderr)
    else:
        block = "no `evaluate` block and " if engine.evaluation is None else ""
        print(visible(f"note: {block}no learned evaluation: the bots read only the victory thresholds "
                      f"(`lfdsl train {engine.origin['ruleset']} --players {players}` learns one)"), file=sys.stderr)


def _load(args, more: dict | None = None, ruleset=None) -> Engine:
    """The engine of the command's ruleset (or `ruleset`), its `--set` parameters and `more`."""
    return Engine.load(ruleset or args.ruleset, getattr(args, "cards", None),
                       {**_params(getattr(args, "set", None)), **(more or {})}, search=_search(args))


def add_common(sp) -> None:
    """The arguments of a command on one ruleset: the file, its cards, its parameters, `--path`."""
    sp.add_argument("ruleset", help="a .lf rules file")
    sp.add_argument("--cards", help="card database (default: the ruleset's `cards` line)")
    sp.add_argument("--set", action="append", metavar="NAME=VALUE", help="set a ruleset parameter")
    add_search(sp)


def add_search(sp, what="the ruleset") -> None:
    """`--path`: the folders `what` may name files in."""
    sp.add_argument("--path", action="append", metavar="DIR",
                    help=f"a folder {what} may also name files in (besides its project)")
