"""Replaying a game from its JSON Lines trace alone.

The `setup` event of a trace names the ruleset, the card databases, the parameters, the players and
the seed, with a hash of every file that was loaded; the `choice` events name every option taken.
Replaying loads the same files (refusing any whose hash changed), plays the same seed and the same
choices, and writes the trace again: for a faithful engine it is the same, byte for byte.

A trace is untrusted data. The files it names are written relative to its own folder and must lie
in its project (the folder tree of the trace, plus the `--path` folders the user gives), checked
as a ruleset's names are; the search roots a trace lists are never used. The trace is read as a
stream, line by line while the game is played again, so memory does not grow with its size, and
the game stops at the first line where the trace and the replayed game part.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import attrs

from rulesdsl.errors import Diagnostic, LanguageError
from rulesdsl.files import DATA_MAX_BYTES, RULES_MAX_BYTES, FileRefused, NotUtf8, Project, decode, open_bytes
from rulesdsl.limits import MAX_PLAYERS

from .records import Doc, check_loaded, load_engine, relative_to, shown
from .trace import JsonLinesSink

TRACE_MAX_BYTES = 1 << 30   # a trace of a very long game: far above any real one, still bounded
EVENT_MAX_BYTES = 8 << 20   # one event read as JSON (the setup, a choice): far above a real one
SHOWN_MAX_BYTES = 4 << 10   # of a line where the trace and the replayed game part, kept to show
_CHUNK = 1 << 20


class ReplayError(LanguageError):
    """The trace cannot be replayed: unreadable, malformed, or its files changed."""

    step = "replay"


@attrs.frozen
class Replay:
    """The outcome: the trace's length, and where the replayed game first departs from it."""

    events: int                     # lines of the trace
    first_difference: int | None    # 1-based line, or None when identical
    trace_line: str | None = None   # the trace's line there (cut when long); None: the trace ends
    replayed_line: str | None = None  # the replayed game's line there; None: the game ends

    @property
    def identical(self) -> bool:
        """True if the regenerated trace equals the original byte for byte."""
        return self.first_difference is None


def for_file(event: dict, folder: str) -> dict:
    """The event as a trace file in `folder` holds it: a `setup` event names its files relative
    to that folder, and leaves out the search roots (a trace never widens a project)."""
    data = event.get("data")
    if event.get("event") != "setup" or not isinstance(data, dict) or "files" not in data:
        return event
    out = {}
    for key, value in data.items():
        if key == "search":
            continue
        if key == "ruleset" or (key == "cards" and value is not None):
            value = relative_to(folder, value)
        elif key == "files":
            value = {relative_to(folder, name): digest for name, digest in value.items()}
        out[key] = value
    return {**event, "data": out}


class TraceFile:
    """A sink writing a trace to the file at `path` (open as `stream`), as `lfdsl replay` reads it."""

    def __init__(self, stream, path: str | Path):
        self.folder = os.path.dirname(os.path.abspath(str(path)))
        self.lines = JsonLinesSink(stream)

    def __call__(self, event: dict):
        self.lines(for_file(event, self.folder))


class _Lines:
    """The lines of a trace as bytes, one at a time, never more than the cap in all."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.file = open_bytes(path, TRACE_MAX_BYTES)
        except FileRefused as exc:
            raise ReplayError([Diagnostic(path, 0, 0, f"cannot read this trace: {exc.message}", exc.hint)]) from None
        self.left = TRACE_MAX_BYTES
        self.number = 0      # lines read
        self.held = None     # a line read ahead (a choice), to be compared next

    def close(self):
        self.file.close()

    def read(self, limit: int):
        """The next line (at most `limit` bytes of it, newline included) and whether it is whole;
        None at the end. The rest of a longer line is skipped."""
        if self.held is not None:
            line, self.held = self.held, None
            return line
        head = self._take(limit)
        if not head:
            return None
        self.number += 1
        whole = head.endswith(b"\n")
        if not whole:
            while True:  # the rest of a long line, if any
                rest = self._take(_CHUNK)
                if not rest or rest.endswith(b"\n"):
                    break
            whole = len(head) < limit
        return head, whole

    def _take(self, limit: int) -> bytes:
        data = self.file.readline(min(limit, self.left))
        self.left -= len(data)
        return data

    def count_rest(self) -> int:
        """The number of lines read and left unread (the length of the trace)."""
        n = self.number
        tail = b""
        while self.left > 0:
            chunk = self.file.read(min(_CHUNK, self.left))
            if not chunk:
                break
            self.left -= len(chunk)
            n += chunk.count(b"\n")
            tail = chunk[-1:]
        return n + (1 if tail and tail != b"\n" else 0)


def _text(path: str, number: int, line: bytes) -> str:
    try:
        return decode(line.rstrip(b"\n")) if number == 1 else line.rstrip(b"\n").decode("utf-8")
    except NotUtf8 as exc:
        raise ReplayError([Diagnostic(path, number, exc.col, "not valid UTF-8")]) from None
    except UnicodeDecodeError as exc:
        col = len(line[:exc.start].decode("utf-8", errors="replace")) + 1
        raise ReplayError([Diagnostic(path, number, col, "not valid UTF-8")]) from None


def _event(path: str, number: int, line: bytes, whole: bool) -> tuple[Doc, dict]:
    """The trace event on a line, parsed within bounds: a positioned ReplayError otherwise."""
    if not whole:
        raise ReplayError([Diagnostic(path, number, 1, f"an event of more than {EVENT_MAX_BYTES:,} bytes",
                                      "lfdsl reads at most this much of one setup or choice event")])
    doc = Doc(path, _text(path, number, line), number, ReplayError, "the event")
    event = doc.parse("not a JSON trace event")
    if not isinstance(event, dict) or not isinstance(event.get("data"), dict) or not isinstance(event.get("event"), str):
        doc.fail([], "not a trace event: `event` and `data` are missing")
    return doc, event


def _setup(path: str, lines: _Lines, search: tuple):
    """The engine of the trace's setup event, its players and seed; every field checked."""
    first = lines.read(EVENT_MAX_BYTES)
    if first is None:
        raise ReplayError([Diagnostic(path, 1, 1, "the trace is empty: a trace starts with its `setup` event")])
    doc, event = _event(path, 1, *first)
    doc.whole = "the `setup` event"
    if event["event"] != "setup":
        doc.fail(["event"], "a trace starts with its `setup` event")
    ruleset = doc.text_at(event, ["data", "ruleset"])
    cards = doc.text_at(event, ["data", "cards"], none=True)
    players = doc.int_at(event, ["data", "players"], 1, MAX_PLAYERS)
    seed = doc.int_at(event, ["data", "seed"])
    params = doc.texts_at(event, ["data", "set"])
    files = doc.texts_at(event, ["data", "files"])
    project = Project.around(path, search)
    ruleset_path = doc.named_file(ruleset, ["data", "ruleset"], project, "trace", RULES_MAX_BYTES)
    cards_path = None if cards is None else doc.named_file(cards, ["data", "cards"], project, "trace", DATA_MAX_BYTES)
    engine = load_engine(doc, ["data"], ruleset_path, cards_path, params, search)
    g = engine.model.game
    doc.int_at(event, ["data", "players"], g.min_players, g.max_players)

    def changed(name):
        return (f"`{shown(os.path.normpath(os.path.join(os.path.dirname(path), name)))}` is not the file this game "
                "was played with (its content changed since the trace was written)",
                "replay with the files of that time, or play the game again")
    check_loaded(doc, ["data"], files, engine.origin["files"], changed)
    return engine, players, seed


class _Comparison:
    """A sink comparing each replayed event with the trace's next line, until they first part."""

    def __init__(self, lines: _Lines, folder: str, sink):
        self.lines = lines
        self.folder = folder
        self.sink = sink
        self.at = None          # the first line that differs
        self.trace_line = None
        self.replayed_line = None
        self.error = None

    def __call__(self, event: dict):
        if self.sink is not None:
            self.sink(event)
        if self.at is not None:
            return
        replayed = json.dumps(for_file(event, self.folder), ensure_ascii=False, separators=(",", ":")) + "\n"
        data = replayed.encode("utf-8")
        got = self.lines.read(max(len(data), SHOWN_MAX_BYTES))
        if got is not None and got[0] == data:
            return
        self.differ(self.lines.number + (got is None), got, replayed.rstrip("\n"))

    def differ(self, number: int, got, replayed: str | None):
        """The trace and the replayed game part at line `number` (the trace's line `got`)."""
        self.at = number
        self.replayed_line = replayed
        if got is not None:
            line, whole = got
            if whole:  # a malformed line is the trace's mistake, not a different game
                try:
                    _event(self.lines.path, number, line, whole)
                except ReplayError as exc:
                    self.error = exc  # raised once the engine returns: the sink must not fail it
            self.trace_line = line[:SHOWN_MAX_BYTES].rstrip(b"\n").decode("utf-8", errors="replace")


def replay(path: str | Path, sink=None, search: tuple = ()) -> Replay:
    """Replay the trace at `path`; `sink`, if given, also receives every regenerated event.

    The files the trace names must lie in its project or under a `search` folder (the user's
    `--path`)."""
    path = str(path)
    lines = _Lines(path)
    try:
        engine, players, seed = _setup(path, lines, tuple(str(s) for s in search))
        lines.file.seek(0)
        lines.left, lines.number = TRACE_MAX_BYTES, 0
        compare = _Comparison(lines, os.path.dirname(os.path.abspath(path)), sink)
        st = engine.new_game(players, seed, sink=compare)
        while compare.at is None and engine.current_player(st) is not None:
            got = lines.read(EVENT_MAX_BYTES)
            if got is None:
                break  # the trace stops at a decision: so does the replayed game
            doc, event = _event(path, lines.number, *got)
            choice = event["data"].get("choice")
            if event["event"] == "choice" and not isinstance(choice, str):
                doc.fail(["data", "choice"], "the `choice` of a choice event must be the label of an option")
            if event["event"] != "choice" or choice not in engine.legal(st):
                compare.differ(lines.number, got, "(a decision: the trace goes another way)")
                break
            lines.held = got
            engine.apply(st, choice, sink=compare)
        if compare.error is not None:
            raise compare.error
        if compare.at is None:
            extra = lines.read(SHOWN_MAX_BYTES)
            if extra is not None:
                compare.differ(lines.number, extra, None)
                if compare.error is not None:
                    raise compare.error
        return Replay(lines.count_rest(), compare.at, compare.trace_line, compare.replayed_line)
    finally:
        lines.close()


MAX_STEPS = 100_000  # decisions a trace's move list holds


def moves(path: str | Path, search: tuple = ()) -> tuple:
    """The game of the trace at `path` without playing it: (engine, players, seed, moves), each
    move `(player, prompt, choice)` of a `choice` event, in order. The files are checked as
    `replay` checks them; the events are read as a stream, within the same bounds."""
    path = str(path)
    lines = _Lines(path)
    try:
        engine, players, seed = _setup(path, lines, tuple(str(s) for s in search))
        out = []
        while len(out) < MAX_STEPS:
            got = lines.read(EVENT_MAX_BYTES)
            if got is None:
                break
            if b'"event":"choice"' not in got[0]:
                continue  # lfdsl writes its events compact: any other event is not read
            doc, event = _event(path, lines.number, *got)
            if event.get("event") != "choice":
                continue
            data = event.get("data")
            choice = data.get("choice") if isinstance(data, dict) else None
            if not isinstance(choice, str):
                doc.fail(["data", "choice"], "the `choice` of a choice event must be the label of an option")
            who, prompt = event.get("player"), data.get("prompt")
            out.append((who if isinstance(who, str) else "", prompt if isinstance(prompt, str) else "", choice))
        return engine, players, seed, out
    finally:
        lines.close()
