"""The table's command, `lfdsl play`: a game at the terminal between people and bots. `register`
adds it to the command line; Textual is imported only when it runs.
"""
from __future__ import annotations

import os

from rulesdsl.errors import count_of

from ..tools import options as opt
from ..tools.commands import EXIT_OK, UsageError, _load, _players_for, _search, add_search


def register(sub) -> None:
    """Adds `play` to `sub` (the subcommands of `lfdsl`), with its handler and the extra it needs."""
    pl = sub.add_parser("play", help="play a game at the terminal against bots (docs/play.md)")
    pl.add_argument("ruleset", nargs="?", help="a .lf rules file (not needed with --resume)")
    pl.add_argument("--cards", help="card database (default: the ruleset's `cards` line)")
    pl.add_argument("--set", action="append", metavar="NAME=VALUE", help="set a ruleset parameter")
    add_search(pl, "the ruleset or the saved game")
    pl.add_argument("--players", type=opt.PLAYERS)
    pl.add_argument("--seed", type=opt.SEED, default=None, help="the game's seed (default: a new one)")
    pl.add_argument("--seat", type=opt.SEAT, default=1, help="your seat, from 1 (default 1)")
    pl.add_argument("--agents", default="random",
                    help="the bots at the other seats, or one agent per seat with `human` for each person "
                         "(human,mcts; human,human for two people at one terminal)")
    pl.add_argument("--save", metavar="FILE", help="where `s` and leaving save the game (default lfdsl-save.json)")
    pl.add_argument("--resume", metavar="FILE", help="go on with a saved game")
    pl.set_defaults(func=cmd_play, extra="play")


def cmd_play(args) -> int:
    """`lfdsl play`: the table until the person leaves; `--save` then keeps the game."""
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
    from .app import PlayApp  # Textual is loaded only for this command
    return PlayApp(open_table(args), args.save)


def open_table(args):
    """The game `lfdsl play` opens: the saved game of `--resume` played again to where it was, or a
    new one. Apart from the app so that the saved-game fuzzer loads a save exactly as `play` does."""
    from ..bots import parse_agents
    from .session import Table
    if args.resume:
        table = Table.resume(args.resume, search=_search(args))
        saved = table.engine.origin["ruleset"]
        if args.ruleset is not None and os.path.realpath(args.ruleset) != os.path.realpath(saved):
            raise UsageError(f"the saved game {args.resume} was played with {saved}, not {args.ruleset}: leave "
                             "the ruleset out, --resume plays the game with the rules it was saved with")
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
