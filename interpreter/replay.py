"""Replaying a game from its JSON Lines trace alone.

The `setup` event of a trace names the ruleset, the card databases, the parameters, the players and
the seed, with a hash of every file that was loaded; the `choice` events name every option taken.
Replaying loads the same files (refusing any whose hash changed), plays the same seed and the same
choices, and writes the trace again: for a faithful engine it is the same, byte for byte.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import attrs

from rulesdsl.errors import Diagnostic, LanguageError, make
from rulesdsl.files import FileRefused, NotUtf8, decode, read_bytes

from .engine import Engine
from .trace import JsonLinesSink

TRACE_MAX_BYTES = 1 << 30  # a trace of a very long game: far above any real one, still bounded


class ReplayError(LanguageError):
    """The trace cannot be replayed: unreadable, malformed, or its files changed."""

    step = "replay"


@attrs.frozen
class Replay:
    """The outcome: the original and the regenerated trace, and where they first differ."""

    original: str
    replayed: str
    events: int
    first_difference: int | None  # 1-based line, or None when identical

    @property
    def identical(self) -> bool:
        """True if the regenerated trace equals the original byte for byte."""
        return self.first_difference is None


def _read(path: str) -> str:
    try:
        return decode(read_bytes(path, TRACE_MAX_BYTES))
    except FileRefused as exc:
        raise ReplayError([Diagnostic(path, 0, 0, f"cannot read this trace: {exc.message}")]) from None
    except NotUtf8 as exc:
        raise ReplayError([Diagnostic(path, exc.line, exc.col, "not valid UTF-8")]) from None


def _events(path: str, text: str) -> list[dict]:
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayError([make(path, text, n, exc.colno, "not a JSON trace event")]) from None
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict) or "event" not in event:
            raise ReplayError([make(path, text, n, 1, "not a trace event: `event` and `data` are missing")])
        events.append(event)
    return events


def _setup(path: str, text: str, events: list[dict]) -> dict:
    if not events or events[0]["event"] != "setup":
        raise ReplayError([make(path, text, 1, 1, "a trace starts with its `setup` event")])
    data = events[0]["data"]
    wanted = {"ruleset": str, "players": int, "seed": int, "set": dict, "files": dict, "search": list}
    for key, kind in wanted.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise ReplayError([make(path, text, 1, 1, f"the `setup` event has no `{key}`: the trace was "
                                    "not written by `lfdsl run --trace`, or by an older version")])
    return data


def _check_files(path: str, text: str, recorded: dict, loaded: dict):
    changed = [f for f in recorded if loaded.get(f) != recorded[f]]
    changed += [f for f in loaded if f not in recorded]
    if changed:
        raise ReplayError([make(path, text, 1, 1, f"`{name}` is not the file this game was played with "
                                "(its content changed since the trace was written)",
                                "replay with the files of that time, or play the game again")
                           for name in sorted(set(changed))])


def replay(path: str | Path, sink=None) -> Replay:
    """Replay the trace at `path`; `sink`, if given, also receives every regenerated event."""
    path = str(path)
    text = _read(path)
    events = _events(path, text)
    setup = _setup(path, text, events)
    for name in setup["files"]:
        try:
            read_bytes(name, TRACE_MAX_BYTES)
        except FileRefused as exc:
            raise ReplayError([make(path, text, 1, 1, f"`{name}`, used by this game: {exc.message}",
                                    "replay from the folder the game was played in")]) from None
    engine = Engine.load(setup["ruleset"], setup.get("cards"), setup["set"], search=tuple(setup["search"]))
    _check_files(path, text, setup["files"], engine.origin["files"])
    out = io.StringIO()
    writer = JsonLinesSink(out)

    def both(event):
        writer(event)
        if sink is not None:
            sink(event)
    st = engine.new_game(setup["players"], setup["seed"], sink=both)
    for n, event in enumerate(events, 1):
        if event["event"] != "choice":
            continue
        choice = event["data"].get("choice")
        if st.pending is None or choice not in st.pending["options"]:
            break  # the game went another way: the comparison below shows where
        engine.apply(st, choice, sink=both)
    replayed = out.getvalue()
    first = None
    if replayed != text:
        a, b = text.splitlines(), replayed.splitlines()
        first = next((i + 1 for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)) + 1)
    return Replay(text, replayed, len(events), first)
