"""One game at the table: people at some seats, bots at the others, every choice recorded, so that
a game can be saved at any decision, resumed, and taken back to a person's previous decision.

A saved game is JSON: the ruleset's files named from the save's folder with the hash of every
file loaded, the parameters, the players, the seed, the agents, and the index of every option
taken. Resuming loads the same files, refuses if any has changed, and plays the game again from its
seed: the people's choices are taken from the file and the bots are asked again, which brings each
bot back to the state it had (a bot that now chooses otherwise is reported). A resumed game
therefore goes on exactly as the uninterrupted game would have.

A saved game is untrusted data, like a trace: every field is checked for its type and range, every
mistake reported at its place in the file, and the files it names must lie in its project (the
folder tree of the save, plus the user's `--path`), checked as a ruleset's names are.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from rulesdsl.errors import Diagnostic, LanguageError, count_of
from rulesdsl.files import DATA_MAX_BYTES, RULES_MAX_BYTES, FileRefused, NotUtf8, Project, decode, digest, read_bytes
from rulesdsl.limits import MAX_DECISION_LIMIT, MAX_PLAYERS

from ..tools.agents import decide, make_agents
from ..bots import AgentSpecError, parse_agents
from ..engine import Engine
from ..tools.records import Doc, check_loaded, kind_of, load_engine, locate, relative_to, shown

FORMAT = "lfdsl saved game 1"
HUMAN = "human"
SAVE_MAX_BYTES = 8 << 20  # a save of a game at the engine's decision limit holds about 6 MiB
SAVE_MAX_FILES = 64       # files one game loads (its layers and card databases): far above a real game
FIELDS = ("format", "ruleset", "cards", "set", "files", "players", "seed", "agents", "history")


class SaveError(LanguageError):
    """A saved game that cannot be resumed: unreadable, not a saved game, or its files changed."""

    step = "resume"


class Table:
    """A game in progress between people (the seats of `humans`) and bots."""

    def __init__(self, engine: Engine, players: int, seed: int, agents: str, sink=None):
        self.engine = engine
        self.players = players
        self.seed = seed
        self.agents_spec = agents
        specs = parse_agents(agents)
        if len(specs) == 1:
            specs = specs * players
        if len(specs) != players:
            raise ValueError(f"{len(specs)} agents for {players} players")
        self.humans = {seat for seat, s in enumerate(specs) if s.name == HUMAN}
        # Bots for the other seats, seeded as `lfdsl run` seeds them; a person's seat holds none.
        stand_in = ",".join("first" if s.name == HUMAN else s.text for s in specs)
        self.sink = sink
        self.history: list[int] = []  # the index of every option taken
        self.seats: list[int] = []    # the seat that took each of them
        self._start(stand_in)

    def _start(self, stand_in: str):
        self.stand_in = stand_in
        self.bots = make_agents(stand_in, self.players, self.seed, self.engine)
        self.state = self.engine.new_game(self.players, self.seed, sink=self.sink)

    # ---- playing --------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state.result is not None

    @property
    def seat_to_play(self):
        """The seat (from 0) whose decision is pending, or None once the game is over."""
        return None if self.over else self.engine.current_player(self.state)

    def advance(self):
        """Let the bots decide until a person's decision or the end of the game."""
        st = self.state
        while not self.over and self.engine.current_player(st) not in self.humans:
            self._apply(self._bot_choice())

    def choose(self, index: int):
        """A person's choice (the index of an option), then the bots' until the next person's."""
        if self.over or self.engine.current_player(self.state) not in self.humans:
            raise ValueError("no person's decision is pending")
        if not 0 <= index < self.engine.option_count(self.state):
            raise ValueError(f"there is no option {index + 1}")
        self._apply(index)
        self.advance()

    def _bot_choice(self) -> int:
        return decide(self.engine, self.state, self.bots[self.engine.current_player(self.state)]).index

    def _apply(self, index: int):
        self.seats.append(self.engine.current_player(self.state))
        self.engine.apply(self.state, index, sink=self.sink)
        self.history.append(index)

    def undo(self) -> bool:
        """Take the game back to the previous decision of the person now to play (or of any person
        when the game is over): False when there is none."""
        me = self.seat_to_play
        earlier = [i for i, s in enumerate(self.seats) if s in self.humans and (me is None or s == me)]
        if not earlier:
            return False
        self.replay(self.history[:earlier[-1]])
        return True

    def replay(self, history: list[int], check: bool = True, fail=None):
        """Play the game again from its seed: the people's choices from `history`, the bots asked
        again (a bot must make the choice it made). `fail(n, message, hint)` makes the error for
        decision n (from 0), placed in the saved game when there is one."""
        fail = fail or (lambda n, message, hint=None: SaveError([Diagnostic("", 0, 0, message, hint)]))
        self._start(self.stand_in)
        self.history, self.seats = [], []
        for n, index in enumerate(history):
            if self.over:
                raise fail(n, f"the game ended before decision {n + 1} of {len(history)}")
            count, who = self.engine.option_count(self.state), self.engine.current_player(self.state)
            if index >= count:
                raise fail(n, f"decision {n + 1} has {count} options, not an option {index + 1}")
            if who not in self.humans:
                again = self._bot_choice()
                if check and again != index:
                    raise fail(n, f"decision {n + 1}: the bot of P{who + 1} "
                                  "now chooses otherwise", "the bots or the engine changed")
            self._apply(index)

    # ---- saving and resuming --------------------------------------------------------------------
    def to_json(self, folder: str = ".") -> dict:
        """The saved game, its files named from `folder` (the save's own)."""
        origin = self.engine.origin
        return {"format": FORMAT, "ruleset": relative_to(folder, origin["ruleset"]),
                "cards": None if origin["cards"] is None else relative_to(folder, origin["cards"]),
                "set": origin["set"], "files": {relative_to(folder, k): v for k, v in origin["files"].items()},
                "players": self.players, "seed": self.seed, "agents": self.agents_spec, "history": list(self.history)}

    def save(self, path):
        """Write the game to `path` (JSON)."""
        folder = os.path.dirname(os.path.abspath(str(path)))
        Path(path).write_text(json.dumps(self.to_json(folder), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def resume(cls, path, sink=None, search: tuple = ()) -> "Table":
        """The game saved at `path`, played again to where it was; a SaveError, at its place in the
        file, if it cannot be. The files it names must lie in its project or a `search` folder."""
        path = str(path)
        search = tuple(str(s) for s in search)
        doc, data = _read(path)
        ruleset = doc.text_at(data, ["ruleset"])
        cards = doc.text_at(data, ["cards"], none=True)
        params = doc.texts_at(data, ["set"])
        files = doc.texts_at(data, ["files"])
        players = doc.int_at(data, ["players"], 1, MAX_PLAYERS)
        seed = doc.int_at(data, ["seed"])
        agents = doc.text_at(data, ["agents"])
        history = doc.value_at(data, ["history"])
        if not isinstance(history, list):
            doc.fail(["history"], f"`history` must be an array of option indexes, not {kind_of(history)}")
        if len(history) > MAX_DECISION_LIMIT:
            doc.fail(["history"], f"`history` holds {len(history):,} decisions; a game has at most "
                                  f"{MAX_DECISION_LIMIT:,}")
        for n, index in enumerate(history):
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < MAX_DECISION_LIMIT:
                doc.fail(["history", n], "a decision of `history` is the index of an option, from 0")
        _agents(doc, agents, players)
        project = Project.around(path, search)
        ruleset_path = doc.named_file(ruleset, ["ruleset"], project, "saved game", RULES_MAX_BYTES)
        cards_path = None if cards is None else doc.named_file(cards, ["cards"], project, "saved game",
                                                                DATA_MAX_BYTES)
        _same_files(doc, files, project)
        engine = load_engine(doc, [], ruleset_path, cards_path, params, search)
        g = engine.model.game
        doc.int_at(data, ["players"], g.min_players, g.max_players)
        check_loaded(doc, [], files, engine.origin["files"], lambda name: (
            f"the game was saved with other rules: {shown(name)} has changed since",
            "resume it with the files it was played with, or start a new game"))
        table = cls(engine, players, seed, agents)
        table.sink = sink  # the game played again from its start: its trace from the start
        table.replay(list(history), fail=lambda n, message, hint=None: SaveError([doc.at(["history", n], message, hint)]))
        table.advance()
        return table


def _read(path: str) -> tuple[Doc, dict]:
    """The saved game's JSON, within bounds, with its format and fields checked."""
    try:
        text = decode(read_bytes(path, SAVE_MAX_BYTES))
    except FileRefused as exc:
        raise SaveError([Diagnostic(path, 0, 0, exc.message, exc.hint)]) from None
    except NotUtf8 as exc:
        raise SaveError([Diagnostic(path, exc.line, exc.col, "not valid UTF-8: not a saved game")]) from None
    doc = Doc(path, text, 1, SaveError, "the saved game")
    data = doc.parse("not a saved game")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        doc.fail(["format"] if isinstance(data, dict) else [], "not a saved game of this version of lfdsl",
                 f"a saved game starts with \"format\": \"{FORMAT}\"")
    for key in data:
        if key == "search":
            continue  # written by earlier versions; a saved game never widens its project
        if key not in FIELDS:
            doc.fail([key], f"a saved game has no field `{shown(key)}`", "the fields: " + ", ".join(FIELDS))
    return doc, data


def _agents(doc: Doc, agents: str, players: int):
    """Check the agents of the saved game (one, or one per seat); their mistakes placed in the file."""
    try:
        specs = parse_agents(agents, "agents")
    except AgentSpecError as exc:
        base = locate(doc.text, ["agents"])[0] + 1  # the text's first character, after its quote
        raise SaveError([doc.diag(base + d.col - 1, d.message, d.hint, base + (d.end_col or d.col) - 1)
                         for d in exc.diagnostics]) from None
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        doc.fail(["agents"], f"{count_of(len(specs), 'agent')} for {count_of(players, 'player')}",
                 "give one agent, or one per seat")


def _same_files(doc: Doc, files: dict, project: Project):
    """Every file the save names must be in its project and have the hash recorded: a changed
    rules file is reported as such, before its rules are read."""
    if len(files) > SAVE_MAX_FILES:
        doc.fail(["files"], f"`files` names {len(files):,} files; a game loads at most {SAVE_MAX_FILES}")
    changed, hashes = [], {}
    for name, was in files.items():
        resolved = os.path.realpath(doc.named_file(name, ["files", name], project, "saved game", DATA_MAX_BYTES))
        if resolved not in hashes:  # a file named twice is read once
            try:
                hashes[resolved] = digest(decode(read_bytes(resolved, DATA_MAX_BYTES)))
            except (FileRefused, NotUtf8):
                hashes[resolved] = None
        if hashes[resolved] != was:
            changed.append(name)
    if changed:
        doc.fail(["files", changed[0]], f"the game was saved with other rules: {', '.join(shown(c) for c in changed)} "
                 f"{'has' if len(changed) == 1 else 'have'} changed since",
                 "resume it with the files it was played with, or start a new game")
