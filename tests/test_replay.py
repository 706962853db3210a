"""`lfdsl replay`: a game replays from its trace alone, byte for byte, and refuses changed files."""
from __future__ import annotations

import json
import shutil

import pytest

from interpreter.tools import cli
from interpreter.tools.replay import ReplayError, replay

from .conftest import ROOT

GAMES = [
    ("base.lf", ["--players", "3", "--set", "goal=10"]),
    ("duel.lf", ["--set", "fire_goal=6"]),
    ("kodama.lf", ["--players", "4", "--set", "raised_goal=14"]),
    ("solo.lf", ["--set", "difficulty=7"]),
]


@pytest.mark.parametrize("ruleset, extra", GAMES, ids=[g[0] for g in GAMES])
def test_replay_reproduces_the_trace_byte_for_byte(tmp_path, capsys, ruleset, extra):
    trace = tmp_path / "game.jsonl"
    args = ["run", str(ROOT / "rulesets" / ruleset), "--seed", "3", "--quiet", "--trace", str(trace), *extra]
    assert cli.main(args) == cli.EXIT_OK
    setup = json.loads(trace.read_text().splitlines()[0])
    assert setup["event"] == "setup" and setup["data"]["seed"] == 3
    name, value = extra[extra.index("--set") + 1].split("=")
    assert setup["data"]["set"] == {name: value} and setup["data"]["params"][name] == int(value)
    assert all(h.startswith("sha256:") for h in setup["data"]["files"].values())
    assert any(f.endswith(".toml") for f in setup["data"]["files"])
    capsys.readouterr()
    again = tmp_path / "again.jsonl"
    # The trace lies outside the rulesets' project: the user widens it on the command line.
    assert cli.main(["replay", str(trace), "--quiet", "--trace", str(again), "--path", str(ROOT)]) == cli.EXIT_OK
    assert "identical byte for byte" in capsys.readouterr().out
    assert again.read_bytes() == trace.read_bytes()


def _game_in_a_copy(tmp_path):
    for folder in ("rulesets", "cards"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    shutil.copy(ROOT / "lfdsl.toml", tmp_path / "lfdsl.toml")
    trace = tmp_path / "game.jsonl"
    assert cli.main(["run", str(tmp_path / "rulesets" / "duel.lf"), "--quiet", "--trace", str(trace)]) == 0
    return trace


def test_a_changed_file_stops_the_replay_with_a_clear_error(tmp_path):
    trace = _game_in_a_copy(tmp_path)
    cards = tmp_path / "cards" / "duel.toml"
    cards.write_text(cards.read_text() + "\n# edited\n")
    with pytest.raises(ReplayError) as info:
        replay(trace)
    d = info.value.diagnostics[0]
    assert d.path == str(trace) and d.line == 1
    assert f"`{cards}` is not the file this game was played with" in d.message


def test_a_changed_choice_is_reported_where_it_differs(tmp_path, capsys):
    trace = _game_in_a_copy(tmp_path)
    lines = trace.read_text().splitlines()
    n, event = next((i, json.loads(x)) for i, x in enumerate(lines)
                    if json.loads(x)["event"] == "choice" and len(json.loads(x)["data"]["options"]) > 1)
    other = next(o for o in event["data"]["options"] if o != event["data"]["choice"])
    event["data"]["choice"] = other
    lines[n] = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    trace.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert cli.main(["replay", str(trace), "--quiet"]) == cli.EXIT_FAILED
    out = capsys.readouterr().out
    # The edited choice is replayed as written; what it caused differs from the next event on.
    line = int(out.split("differs from line ")[1].split("\n")[0])
    assert line == n + 2


def test_a_malformed_trace_is_a_positioned_error(tmp_path, capsys):
    trace = tmp_path / "bad.jsonl"
    # The trace is read as the game is played again: its first line is read first.
    trace.write_text('{oops\n{"seq":1,"event":"setup","data":{"players":2}}\n')
    assert cli.main(["replay", str(trace)]) == cli.EXIT_STATIC
    assert f"{trace}:1:2: not a JSON trace event" in capsys.readouterr().err
    trace.write_text('{"seq":1,"event":"setup","data":{"players":2}}\n')
    assert cli.main(["replay", str(trace)]) == cli.EXIT_STATIC
    assert "the `setup` event has no `ruleset`" in capsys.readouterr().err
