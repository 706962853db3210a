"""One game at the table: people at some seats, bots at the others, every choice recorded, so that
a game can be saved at any decision, resumed, and taken back to a person's previous decision.

A saved game is JSON: the ruleset's files as they were given with the hash of every file loaded,
the parameters, the players, the seed, the agents, and the index of every option taken. Resuming
loads the same files, refuses if any has changed, and plays the game again from its seed: the
people's choices are taken from the file and the bots are asked again, which brings each bot back
to the state it had (a bot that now chooses otherwise is reported). A resumed game therefore goes
on exactly as the uninterrupted game would have.
"""
from __future__ import annotations

import json
from pathlib import Path

from rulesdsl.errors import Diagnostic, LanguageError
from rulesdsl.files import DATA_MAX_BYTES, FileRefused, digest, read_bytes, decode

from ..agents import decide, make_agents
from ..bots import parse_agents
from ..engine import Engine

FORMAT = "lfdsl saved game 1"
HUMAN = "human"


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
        return None if self.over else self.state.pending["player"]

    def advance(self):
        """Let the bots decide until a person's decision or the end of the game."""
        st = self.state
        while not self.over and st.pending["player"] not in self.humans:
            self._apply(self._bot_choice())

    def choose(self, index: int):
        """A person's choice (the index of an option), then the bots' until the next person's."""
        if self.over or self.state.pending["player"] not in self.humans:
            raise ValueError("no person's decision is pending")
        if not 0 <= index < len(self.state.pending["options"]):
            raise ValueError(f"there is no option {index + 1}")
        self._apply(index)
        self.advance()

    def _bot_choice(self) -> int:
        return decide(self.engine, self.state, self.bots[self.state.pending["player"]]).index

    def _apply(self, index: int):
        self.seats.append(self.state.pending["player"])
        self.engine.apply(self.state, index, sink=self.sink)
        self.history.append(index)

    def undo(self) -> bool:
        """Take the game back to the previous decision of the person now to play (or of any person
        when the game is over): False when there is none."""
        me = self.seat_to_play
        earlier = [i for i, s in enumerate(self.seats) if s in self.humans and (me is None or s == me)]
        if not earlier:
            return False
        self._replay(self.history[:earlier[-1]])
        return True

    def _replay(self, history: list[int], check: bool = True):
        """Play the game again from its seed: the people's choices from `history`, the bots asked
        again (a bot must make the choice it made)."""
        self._start(self.stand_in)
        self.history, self.seats = [], []
        for n, index in enumerate(history):
            if self.over:
                raise SaveError([Diagnostic("", 0, 0, f"the game ended before decision {n + 1} of {len(history)}")])
            if self.state.pending["player"] not in self.humans:
                again = self._bot_choice()
                if check and again != index:
                    raise SaveError([Diagnostic("", 0, 0, f"decision {n + 1}: the bot of P{self.state.pending['player'] + 1} "
                                                          "now chooses otherwise", "the bots or the engine changed")])
            self._apply(index)

    # ---- saving and resuming --------------------------------------------------------------------
    def to_json(self) -> dict:
        origin = self.engine.origin
        return {"format": FORMAT, "ruleset": origin["ruleset"], "cards": origin["cards"], "search": origin["search"],
                "set": origin["set"], "files": origin["files"], "players": self.players, "seed": self.seed,
                "agents": self.agents_spec, "history": list(self.history)}

    def save(self, path):
        """Write the game to `path` (JSON)."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def resume(cls, path, sink=None) -> "Table":
        """The game saved at `path`, played again to where it was; a SaveError if it cannot be."""
        path = str(path)
        try:
            data = json.loads(decode(read_bytes(path, DATA_MAX_BYTES)))
        except FileRefused as exc:
            raise SaveError([Diagnostic(path, 0, 0, exc.message, exc.hint)]) from None
        except ValueError:
            raise SaveError([Diagnostic(path, 1, 1, "not a saved game: the file is not JSON")]) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise SaveError([Diagnostic(path, 1, 1, "not a saved game of this version of lfdsl",
                                        f"a saved game starts with \"format\": \"{FORMAT}\"")])
        changed = []
        for name, was in sorted(data["files"].items()):
            try:
                now = digest(decode(read_bytes(name, DATA_MAX_BYTES)))
            except (FileRefused, ValueError):
                now = None
            if now != was:
                changed.append(name)
        if changed:
            raise SaveError([Diagnostic(path, 1, 1, f"the game was saved with other rules: {', '.join(changed)} "
                                        f"{'has' if len(changed) == 1 else 'have'} changed since",
                                        "resume it with the files it was played with, or start a new game")])
        engine = Engine.load(data["ruleset"], data.get("cards"), data.get("set") or {}, search=tuple(data.get("search", ())))
        table = cls(engine, data["players"], data["seed"], data["agents"])
        table.sink = sink  # the game played again from its start: its trace from the start
        table._replay(list(data["history"]))
        table.advance()
        return table
