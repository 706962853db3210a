"""The studio's tables: games in progress, live in memory and kept in SQLite.

A table is a `Table` of the terminal table (interpreter/table/session.py: the game, its bots, its
history of options taken) with a token per seat played by a person, and one for its host, who acts
for whichever person is to play (one screen, hot seat). SQLite keeps what plays the game again:
the ruleset (a path under the studio's root), the players, the seed, the agents, the hashes of
the files loaded and the history. After a restart every table is played again from its seed to
where it was; a table whose files changed since is kept aside with the reason, never played with
other rules.

Every change of a table happens under its lock, on a worker thread (the rules and the bots are
Python work that would stop the server's event loop), and is written to SQLite before anyone is
told of it.
"""
from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading

from rulesdsl.errors import LanguageError
from rulesdsl.limits import MAX_DECISION_LIMIT, MAX_PLAYERS

from ..engine import Engine, GameError
from ..table.session import Table

MAX_TABLES = 500      # games in progress one studio plays at once
KEEP_FINISHED = 100   # finished games kept in memory; older ones are read again from SQLite when asked
HUMAN = "human"

SCHEMA = """
create table if not exists tables (
    id text primary key,
    ruleset text not null,
    players integer not null,
    seed integer not null,
    agents text not null,
    files text not null,
    tokens text not null,
    history text not null,
    created integer not null,
    over integer not null default 0
)
"""


class StudioError(Exception):
    """A request the studio refuses, with the reason to show."""


class Live:
    """One table in play: its game, its tokens (seat or "host" -> token) and its lock."""

    def __init__(self, key: str, ruleset: str, table: Table, tokens: dict):
        self.key = key
        self.ruleset = ruleset
        self.table = table
        self.tokens = tokens
        self.lock = threading.Lock()

    def seat_of(self, token: str):
        """The seat (from 0) this token plays, "host" for the host's, or None."""
        for who, t in self.tokens.items():
            if secrets.compare_digest(t, token):
                return who if who == "host" else int(who)
        return None

    def acting(self, who) -> int | None:
        """The seat whose decision `who` (a seat or "host") may take now, or None."""
        now = self.table.seat_to_play
        if now is None or now not in self.table.humans:
            return None
        return now if who == "host" or who == now else None


class Store:
    """The tables of one studio: `root` is the folder whose rulesets it plays (no file outside it
    is read), `path` the SQLite file (":memory:" keeps nothing)."""

    def __init__(self, root: str, path: str = ":memory:"):
        self.root = os.path.realpath(root)
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute(SCHEMA)
        if "over" not in {row[1] for row in self.db.execute("pragma table_info(tables)")}:
            self.db.execute("alter table tables add column over integer not null default 0")
        self.db_lock = threading.Lock()
        self.engines: dict[str, Engine] = {}
        self.live: dict[str, Live] = {}
        self.aside: dict[str, str] = {}  # table -> why it cannot be played again
        self._load_all()

    # ---- files ------------------------------------------------------------------------------------
    def ruleset_path(self, name: str) -> str:
        """The ruleset `name` (relative to the root) as a real path inside the root, or StudioError."""
        if not isinstance(name, str) or not name or "\x00" in name or len(name) > 400:
            raise StudioError("name a ruleset, a .lf file under the studio's folder")
        path = os.path.realpath(os.path.join(self.root, name))
        if os.path.commonpath([path, self.root]) != self.root:
            raise StudioError("the studio plays only the rulesets under its own folder")
        if not path.endswith(".lf") or not os.path.isfile(path):
            raise StudioError("no such ruleset under the studio's folder")
        return path

    def rulesets(self) -> list[str]:
        """The .lf files under the root (at most 200), relative to it, for the new-table form."""
        out = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__"))
            out += [os.path.relpath(os.path.join(folder, f), self.root) for f in sorted(files) if f.endswith(".lf")]
            if len(out) >= 200:
                break
        return out[:200]

    def engine(self, name: str) -> Engine:
        """The ruleset `name` loaded once (a compiled ruleset is shared by all its tables)."""
        path = self.ruleset_path(name)
        if path not in self.engines:
            try:
                self.engines[path] = Engine.load(path)
            except LanguageError as exc:
                first = exc.diagnostics[0] if getattr(exc, "diagnostics", None) else None
                raise StudioError(f"the ruleset does not load: {first.message if first else 'an error'}") from None
        return self.engines[path]

    # ---- tables -----------------------------------------------------------------------------------
    def create(self, ruleset: str, players: int, agents: list[str], seed: int | None = None) -> Live:
        """A new table; `agents` one per seat, `human` for a person."""
        if sum(not live.table.over for live in self.live.values()) >= MAX_TABLES:
            raise StudioError(f"the studio plays at most {MAX_TABLES} games at once")
        engine = self.engine(ruleset)
        g = engine.model.game
        if not isinstance(players, int) or not g.min_players <= players <= min(g.max_players, MAX_PLAYERS):
            raise StudioError(f"{g.name} is played by {g.min_players} to {g.max_players} players")
        if len(agents) != players:
            raise StudioError("one agent per seat")
        from ..bots import parse_agents
        try:
            parse_agents(",".join(agents))
        except (ValueError, LanguageError) as exc:
            raise StudioError(f"agents: {exc}") from None
        seed = secrets.randbits(31) if seed is None else seed
        table = Table(engine, players, seed, ",".join(agents))
        tokens = {str(s): secrets.token_urlsafe(16) for s in sorted(table.humans)}
        tokens["host"] = secrets.token_urlsafe(16)
        key = secrets.token_hex(6)
        live = Live(key, os.path.relpath(self.ruleset_path(ruleset), self.root), table, tokens)
        with live.lock:
            try:
                table.advance()
            except GameError as exc:
                raise StudioError(f"the game stopped: {exc.diagnostic.message}") from None
            self._insert(live)
        self.live[key] = live
        return live

    def choose(self, key: str, token: str, turn: int, index: int) -> None:
        """The person of `token` takes option `index` at decision `turn` (its number from 0, so
        that a choice sent twice is taken once); then the bots play to the next person's turn."""
        live = self.get(key)
        if live is None:
            raise StudioError("no such table")
        who = live.seat_of(token)
        with live.lock:
            t = live.table
            if who is None or live.acting(who) is None:
                raise StudioError("it is not your turn")
            if turn != len(t.history):
                raise StudioError("that decision is already taken")
            if not isinstance(index, int) or not 0 <= index < t.engine.option_count(t.state):
                raise StudioError("no such option")
            try:
                t.choose(index)
            except GameError as exc:
                raise StudioError(f"the game stopped: {exc.diagnostic.message}") from None
            self._save_history(live)
        if live.table.over:
            self._forget_finished()

    def get(self, key: str) -> Live | None:
        """The table `key`: in memory, or a finished one read again from SQLite."""
        live = self.live.get(key)
        if live is None and isinstance(key, str) and len(key) <= 40:
            with self.db_lock:
                rows = self.db.execute("select id, ruleset, players, seed, agents, files, tokens, history "
                                       "from tables where id = ?", (key,)).fetchall()
            self._load(rows)
            live = self.live.get(key)
        return live

    def _forget_finished(self):
        """Keep at most KEEP_FINISHED finished games in memory (the oldest go; SQLite keeps them)."""
        finished = [k for k, live in self.live.items() if live.table.over]
        for key in finished[:-KEEP_FINISHED]:
            del self.live[key]

    def _insert(self, live: Live):
        t = live.table
        with self.db_lock:
            self.db.execute("insert into tables values (?, ?, ?, ?, ?, ?, ?, ?, strftime('%s','now'), ?)",
                            (live.key, live.ruleset, t.players, t.seed, t.agents_spec,
                             json.dumps(t.engine.origin["files"]), json.dumps(live.tokens), json.dumps(t.history),
                             int(t.over)))

    def _save_history(self, live: Live):
        with self.db_lock:
            self.db.execute("update tables set history = ?, over = ? where id = ?",
                            (json.dumps(live.table.history), int(live.table.over), live.key))

    def _load_all(self):
        """Every game in progress of the database, and the last finished ones, played again to
        where they were."""
        columns = "id, ruleset, players, seed, agents, files, tokens, history"
        with self.db_lock:
            rows = self.db.execute(f"select {columns} from tables where over = 0 order by created, id limit ?",
                                   (MAX_TABLES,)).fetchall()
            rows += self.db.execute(f"select * from (select {columns}, created from tables where over = 1 order by "
                                    f"created desc, id desc limit ?) order by created, id", (KEEP_FINISHED,)).fetchall()
        self._load([r[:8] for r in rows])

    def _load(self, rows):
        """The tables of these rows of the database, played again to where they were. The database
        is a file like any other: a row that is not what the studio writes is kept aside, with
        the reason, never played."""
        for row in rows:
            key = row[0]
            try:
                ruleset, players, seed, agents, files, tokens, history = _checked(row)
                engine = self.engine(ruleset)
                if engine.origin["files"] != files:
                    raise StudioError("its rules changed since it was played: start a new table")
                g = engine.model.game
                if not g.min_players <= players <= g.max_players:
                    raise StudioError(f"{players} players: the ruleset is played by {g.min_players} to {g.max_players}")
                table = Table(engine, players, seed, agents)
                table.replay(history)
                table.advance()
            except (StudioError, LanguageError, GameError, ValueError) as exc:
                self.aside[str(key)[:40]] = str(exc)
                continue
            self.live[key] = Live(key, ruleset, table, tokens)


def _checked(row) -> tuple:
    """A row of the database with every field of the type and within the bounds the studio writes,
    the JSON fields read (bounded by their length); a StudioError otherwise."""
    key, ruleset, players, seed, agents, files, tokens, history = row
    if not (isinstance(key, str) and len(key) <= 40 and isinstance(ruleset, str) and isinstance(agents, str)
            and len(agents) <= 1000 and type(players) is int and 1 <= players <= MAX_PLAYERS
            and type(seed) is int and 0 <= seed < 2 ** 63):
        raise StudioError("a row of the database is not one the studio wrote")
    for text in (files, tokens, history):
        if not isinstance(text, str) or len(text) > 16 * MAX_DECISION_LIMIT:
            raise StudioError("a row of the database is not one the studio wrote")
    try:
        files, tokens, history = json.loads(files), json.loads(tokens), json.loads(history)
    except (ValueError, RecursionError):
        raise StudioError("a row of the database holds JSON that does not read") from None
    if not (isinstance(files, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
            and isinstance(tokens, dict) and "host" in tokens
            and all(isinstance(k, str) and isinstance(v, str) for k, v in tokens.items())
            and isinstance(history, list) and len(history) <= MAX_DECISION_LIMIT
            and all(type(i) is int and 0 <= i < MAX_DECISION_LIMIT for i in history)):
        raise StudioError("a row of the database is not one the studio wrote")
    return ruleset, players, seed, agents, files, tokens, history
