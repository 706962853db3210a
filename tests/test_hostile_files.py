"""Hostile traces and saved games: each ends with a positioned error (or a clean comparison) within
the CPU and memory limits of tests/test_hostile.py, prints nothing of a file it may not read, and
never the canary variable.

A trace (`lfdsl replay`) and a saved game (`lfdsl play --resume`) are files someone else may have
written: the files they name are checked as a ruleset's names are, against their own project
(their folder tree, plus the `--path` the user gives); the search roots they list are not used.
Every input is written into `tmp_path`; the commands run in a subprocess (`lfdsl()`).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter.tools import cli
from interpreter.engine import Engine
from interpreter.tools.replay import TRACE_MAX_BYTES, ReplayError, replay
from interpreter.table.session import SaveError, Table

from .test_hostile import CANARY, GAME, ROUND, _folder, assert_clean_end, lfdsl

PASSWD = "root:"               # the start of /etc/passwd: never printed
UP = "../" * 24                # enough `..` to reach / from any temporary folder


def _project(folder: Path) -> Path:
    """A project (marker, small ruleset, its cards) in `folder`; returns the ruleset."""
    folder.mkdir(parents=True, exist_ok=True)
    _folder(folder)
    (folder / "lfdsl.toml").write_text("")
    rules = folder / "ok.lf"
    rules.write_text(GAME.format(cards="tiny.toml") + ROUND)
    return rules


def _trace(tmp_path: Path) -> Path:
    """A trace of a game of the small ruleset, written by `lfdsl run --trace` in its project."""
    rules = _project(tmp_path / "game")
    trace = tmp_path / "game" / "t.jsonl"
    assert cli.main(["run", str(rules), "--quiet", "--trace", str(trace)]) == cli.EXIT_OK
    return trace


def _edited_trace(trace: Path, name: str = "bad.jsonl", **data) -> Path:
    """A copy of `trace` (next to it) with these fields of its setup event replaced."""
    lines = trace.read_text(encoding="utf-8").splitlines(keepends=True)
    setup = json.loads(lines[0])
    setup["data"].update(data)
    out = trace.parent / name
    out.write_text(json.dumps(setup, separators=(",", ":")) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return out


def _save(tmp_path: Path) -> Path:
    """A saved game of the small ruleset, saved in its project after two decisions."""
    rules = _project(tmp_path / "game")
    table = Table(Engine.load(rules), 1, 5, "human")
    table.advance()
    table.choose(0)
    table.choose(1)
    save = tmp_path / "game" / "save.json"
    table.save(save)
    return save


def _edited_save(save: Path, drop=(), name: str = "bad.json", **fields) -> Path:
    data = json.loads(save.read_text(encoding="utf-8"))
    data.update(fields)
    for key in drop:
        del data[key]
    out = save.parent / name
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return out


def _line(save: Path, key: str) -> int:
    """The line of the saved game where `key` is written."""
    return next(n for n, x in enumerate(save.read_text().splitlines(), 1) if x.strip().startswith(f'"{key}"'))


def _replayed(trace: Path, *more, exits=(2,), secrets=()):
    result = lfdsl("replay", str(trace), "--quiet", *more)
    assert_clean_end(result, exits=exits, secrets=(CANARY, *secrets), where=(str(trace), 1) if exits == (2,) else None)
    return result


def _resumed(save: Path, line: int | None = None, secrets=()):
    result = lfdsl("play", "--resume", str(save))
    assert_clean_end(result, exits=(2,), secrets=(CANARY, *secrets), where=(str(save), line) if line else None)
    assert "internal error" not in result[2]
    return result


# ---- the good behaviour is kept ----------------------------------------------------------------
def test_a_trace_written_in_its_project_replays_from_anywhere(tmp_path):
    trace = _trace(tmp_path)
    setup = json.loads(trace.read_text().splitlines()[0])["data"]
    assert setup["ruleset"] == "ok.lf" and list(setup["files"]) == ["ok.lf", "tiny.toml"] and "search" not in setup
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, out, err, _ = lfdsl("replay", str(trace), "--quiet", "--trace", str(elsewhere / "again.jsonl"),
                              cwd=elsewhere)
    assert code == 0 and "identical byte for byte" in out, err
    # written elsewhere, the replayed trace names the same files from its own folder
    again = json.loads((elsewhere / "again.jsonl").read_text().splitlines()[0])["data"]
    assert again["ruleset"] == "../game/ok.lf"


def test_a_saved_game_resumes_where_it_was(tmp_path):
    save = _save(tmp_path)
    data = json.loads(save.read_text())
    assert data["ruleset"] == "ok.lf" and list(data["files"]) == ["ok.lf", "tiny.toml"] and "search" not in data
    table = Table.resume(save)
    assert table.history == data["history"]


def test_the_user_widens_the_project_of_a_trace_with_path(tmp_path):
    trace = _trace(tmp_path)
    away = tmp_path / "traces"
    away.mkdir()
    moved = away / "t.jsonl"
    lines = trace.read_text().splitlines(keepends=True)
    setup = json.loads(lines[0])
    setup["data"]["ruleset"] = "../game/ok.lf"
    setup["data"]["files"] = {"../game/ok.lf": setup["data"]["files"]["ok.lf"],
                              "../game/tiny.toml": setup["data"]["files"]["tiny.toml"]}
    moved.write_text(json.dumps(setup, separators=(",", ":")) + "\n" + "".join(lines[1:]))
    _replayed(moved)  # the files are outside the trace's folder tree
    code, out, err, _ = lfdsl("replay", str(moved), "--quiet", "--path", str(tmp_path / "game"))
    assert code == 0 and "identical byte for byte" in out, err


# ---- files a trace or a save may not name ------------------------------------------------------
@pytest.mark.parametrize("field, value, secret", [
    ("ruleset", "/etc/passwd", PASSWD),
    ("ruleset", "/proc/self/environ", CANARY),
    ("ruleset", UP + "etc/passwd", PASSWD),
    ("cards", UP + "etc/passwd", PASSWD),
    ("cards", "/proc/self/environ", CANARY),
], ids=["ruleset-etc-passwd", "ruleset-proc-environ", "ruleset-dotdot", "cards-dotdot", "cards-proc-environ"])
def test_a_trace_naming_a_file_outside_its_project(tmp_path, field, value, secret):
    trace = _edited_trace(_trace(tmp_path), **{field: value})
    code, out, err, _ = _replayed(trace, secrets=(secret,))
    assert "relative to its own folder" in err or "outside the trace's project" in err
    assert f'"{field}":"' in err.split("\n")[1]  # the line of the trace is shown, the caret under the value


@pytest.mark.parametrize("field, value, secret", [
    ("ruleset", "/etc/passwd", PASSWD),
    ("ruleset", "/proc/self/environ", CANARY),
    ("cards", UP + "etc/passwd", PASSWD),
], ids=["ruleset-etc-passwd", "ruleset-proc-environ", "cards-dotdot"])
def test_a_save_naming_a_file_outside_its_project(tmp_path, field, value, secret):
    save = _edited_save(_save(tmp_path), **{field: value})
    code, out, err, _ = _resumed(save, secrets=(secret,))
    assert f'"{field}": ' in err.split("\n")[1]


def test_a_save_naming_a_ruleset_outside_its_folder_tree(tmp_path):
    save = _save(tmp_path)
    _project(tmp_path / "other")  # a valid ruleset, but not in the save's project
    bad = _edited_save(save, ruleset="../other/ok.lf")
    _, _, err, _ = _resumed(bad, line=_line(bad, "ruleset"))
    assert "outside the saved game's project" in err


def test_the_search_roots_of_a_trace_widen_nothing(tmp_path):
    """A downloaded ruleset whose `extends` leaves its project, with a trace listing `/` as a search
    root: `lfdsl check` refuses the `extends`, and so does `lfdsl replay`."""
    trace = _trace(tmp_path)
    (trace.parent / "ok.lf").write_text(f'extends "{UP}etc/passwd"\n')
    setup = json.loads(trace.read_text().splitlines()[0])
    assert "search" not in setup["data"]
    bad = _edited_trace(trace, search=["/"])
    result = lfdsl("replay", str(bad), "--quiet")
    assert_clean_end(result, exits=(2,), secrets=(PASSWD, CANARY))
    assert "outside the ruleset's project" in result[2]


def test_the_search_roots_of_a_save_widen_nothing(tmp_path):
    save = _save(tmp_path)
    (save.parent / "ok.lf").write_text(f'extends "{UP}etc/passwd"\n')
    bad = _edited_save(save, search=["/"])
    _, _, err, _ = _resumed(bad, secrets=(PASSWD,))
    assert "the game was saved with other rules" in err or "outside the ruleset's project" in err


def test_a_save_whose_files_map_is_empty_or_partial_is_refused(tmp_path):
    save = _save(tmp_path)
    bad = _edited_save(save, files={})
    _, _, err, _ = _resumed(bad, line=_line(bad, "files"))
    assert "`ok.lf` is loaded by this game, but the saved game has no hash for it" in err
    assert "`tiny.toml` is loaded by this game, but the saved game has no hash for it" in err
    files = json.loads(save.read_text())["files"]
    del files["tiny.toml"]
    _, _, err, _ = _resumed(_edited_save(save, files=files))
    assert "`tiny.toml` is loaded by this game" in err and "`ok.lf` is loaded" not in err


def test_a_trace_whose_files_map_is_empty_or_names_more_is_refused(tmp_path):
    trace = _trace(tmp_path)
    _, _, err, _ = _replayed(_edited_trace(trace, files={}))
    assert "`ok.lf` is loaded by this game, but the `setup` event has no hash for it" in err
    files = json.loads(trace.read_text().splitlines()[0])["data"]["files"]
    _, _, err, _ = _replayed(_edited_trace(trace, files={**files, "other.lf": "sha256:0"}))
    assert "`other.lf` is not loaded by this game: only the files a game loads are named" in err


def test_a_nul_in_a_path_is_refused(tmp_path):
    _, _, err, _ = _replayed(_edited_trace(_trace(tmp_path), ruleset="ok\u0000.lf"))
    assert "a file name cannot hold a NUL character" in err
    bad = _edited_save(_save(tmp_path), cards="tiny\u0000.toml")
    _, _, err, _ = _resumed(bad, line=_line(bad, "cards"))
    assert "a file name cannot hold a NUL character" in err


def test_a_nul_in_a_path_on_the_command_line_is_refused(tmp_path, capsys):
    rules = _project(tmp_path / "game")
    assert cli.main(["check", "ok\0.lf"]) == cli.EXIT_STATIC
    # the NUL itself is never written to the terminal: it is shown as an escape
    err = capsys.readouterr().err
    assert "ok\\x00.lf: cannot read this rules file: a file name cannot hold a NUL character" in err
    assert "\0" not in err
    assert cli.main(["check", str(rules), "--cards", "x\0.toml"]) == cli.EXIT_STATIC
    assert "a file name cannot hold a NUL character" in capsys.readouterr().err
    assert cli.main(["check", str(rules), "--path", "sha\0red"]) == cli.EXIT_STATIC
    assert "--path:1:4: a file name cannot hold a NUL character" in capsys.readouterr().err
    assert cli.main(["replay", "t\0.jsonl"]) == cli.EXIT_STATIC
    assert "a file name cannot hold a NUL character" in capsys.readouterr().err
    assert cli.main(["run", str(rules), "--quiet", "--trace", "t\0.jsonl"]) == cli.EXIT_STATIC
    assert "--trace:1:2: a file name cannot hold a NUL character" in capsys.readouterr().err


# ---- malformed, deep, huge ---------------------------------------------------------------------
def test_deep_json_in_a_trace_and_a_save(tmp_path):
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "\n")
    _, _, err, _ = _replayed(tmp_path / "deep.jsonl")
    assert "nested more than" in err and "Recursion" not in err
    (tmp_path / "deep.json").write_text('{"format": ' + "[" * 100_000 + "\n")
    _, _, err, _ = _resumed(tmp_path / "deep.json", line=1)
    assert "nested more than" in err and "Recursion" not in err


def test_deep_json_in_a_choice_event(tmp_path):
    trace = _trace(tmp_path)
    lines = trace.read_text().splitlines(keepends=True)
    n = next(i for i, x in enumerate(lines) if json.loads(x)["event"] == "choice")
    lines[n] = lines[n].replace('"options":', '"deep":' + "[" * 50_000 + "0" + "]" * 50_000 + ',"options":')
    trace.write_text("".join(lines))
    result = lfdsl("replay", str(trace), "--quiet")
    assert_clean_end(result, exits=(2,), where=(str(trace), n + 1))


def test_a_number_of_five_thousand_digits(tmp_path):
    # Written as text: Python itself refuses to print so long a number.
    trace = _edited_trace(_trace(tmp_path), seed=123456789)
    trace.write_text(trace.read_text().replace('"seed":123456789', '"seed":' + "9" * 5000, 1))
    _, _, err, _ = _replayed(trace)
    assert "a number of more than 20 digits" in err and "4300" not in err
    save = _edited_save(_save(tmp_path), seed=123456789)
    save.write_text(save.read_text().replace('"seed": 123456789', '"seed": ' + "9" * 5000, 1))
    _, _, err, _ = _resumed(save, line=_line(save, "seed"))
    assert "a number of more than 20 digits" in err and "4300" not in err


def test_a_trace_and_a_save_that_are_not_utf8(tmp_path):
    trace = _trace(tmp_path)
    bad = tmp_path / "game" / "bad.jsonl"
    bad.write_bytes(trace.read_bytes().replace(b'"ok.lf"', b'"ok\xff.lf"', 1))
    _, _, err, _ = _replayed(bad)
    assert "not valid UTF-8" in err
    save = _save(tmp_path)
    bad = tmp_path / "game" / "bad.json"
    bad.write_bytes(save.read_bytes().replace(b'"ok.lf"', b'"ok\xff.lf"', 1))
    _, _, err, _ = _resumed(bad, line=_line(save, "ruleset"))
    assert "not valid UTF-8" in err


@pytest.mark.parametrize("change, at, message", [
    ({"drop": ("history",)}, "{", "the saved game has no `history`"),
    ({"drop": ("agents",)}, "{", "the saved game has no `agents`"),
    ({"players": "two"}, '"players"', "`players` must be a whole number, not a text"),
    ({"players": 5}, '"players"', "`players` must be from 1 to 1, not 5"),
    ({"players": 10 ** 6}, '"players"', "`players` must be from 1 to 16"),
    ({"seed": 2 ** 64}, '"seed"', "`seed` must be from"),
    ({"seed": 1.5}, '"seed"', "`seed` must be a whole number, not a decimal number"),
    ({"set": ["x"]}, '"set"', "`set` must be an object"),
    ({"set": {"n": 3}}, '"n"', "`n` must be a text, not a whole number"),
    ({"set": {"nope": "3"}}, '"nope"', "the ruleset has no parameter `nope`"),
    ({"files": "ok.lf"}, '"files"', "`files` must be an object"),
    ({"ruleset": 7}, '"ruleset"', "`ruleset` must be a text"),
    ({"cards": ["tiny.toml"]}, '"cards"', "`cards` must be a text or null"),
    ({"agents": "nosuch"}, '"agents"', "nosuch"),
    ({"agents": "human,random"}, '"agents"', "2 agents for 1 player"),
    ({"history": "0,1"}, '"history"', "`history` must be an array"),
    ({"history": [0, -1]}, "-1", "a decision of `history` is the index of an option"),
    ({"history": [0, True]}, "true", "a decision of `history` is the index of an option"),
    ({"history": [0, 7]}, "7", "decision 2 has 2 options, not an option 8"),
    ({"history": [0] * 50}, None, "the game ended before decision"),
    ({"format": "lfdsl saved game 0"}, '"format"', "not a saved game of this version of lfdsl"),
    ({"extra": 1}, '"extra"', "a saved game has no field `extra`"),
    ({"e\x1b[2Jx": 1}, '"e', "a saved game has no field `e\\x1b[2Jx`"),  # escaped as every error is
], ids=lambda v: str(v)[:40])
def test_a_save_with_a_missing_or_mistyped_field(tmp_path, change, at, message):
    save = _edited_save(_save(tmp_path), **change)
    lines = save.read_text().splitlines()
    line = None if at is None else next(n for n, x in enumerate(lines, 1) if x.strip().startswith(at))
    _, _, err, _ = _resumed(save, line=line)
    assert message in err, err


def test_a_save_that_is_not_json(tmp_path):
    (tmp_path / "s.json").write_text('{"format": "lfdsl saved game 1",\n "ruleset": oops}\n')
    _, _, err, _ = _resumed(tmp_path / "s.json", line=2)
    assert "not a saved game: not valid JSON here" in err


@pytest.mark.parametrize("change, message", [
    ({"players": "2"}, "`players` must be a whole number, not a text"),
    ({"players": 3}, "`players` must be from 1 to 1, not 3"),
    ({"seed": None}, "`seed` must be a whole number, not null"),
    ({"set": {"nope": "1"}}, "the ruleset has no parameter `nope`"),
    ({"ruleset": ""}, "`ruleset` must be a text, not an empty text"),
], ids=lambda v: str(v)[:30])
def test_a_trace_with_a_mistyped_setup(tmp_path, change, message):
    _, _, err, _ = _replayed(_edited_trace(_trace(tmp_path), **change))
    assert message in err, err


def test_a_trace_whose_setup_misses_a_field(tmp_path):
    trace = _trace(tmp_path)
    lines = trace.read_text().splitlines(keepends=True)
    setup = json.loads(lines[0])
    del setup["data"]["files"]
    trace.write_text(json.dumps(setup) + "\n" + "".join(lines[1:]))
    _, _, err, _ = _replayed(trace)
    assert "the `setup` event has no `files`" in err


def test_a_choice_that_is_not_a_label(tmp_path):
    trace = _trace(tmp_path)
    lines = trace.read_text().splitlines(keepends=True)
    n = next(i for i, x in enumerate(lines) if json.loads(x)["event"] == "choice")
    event = json.loads(lines[n])
    event["data"]["choice"] = int("7" * 30)
    lines[n] = json.dumps(event, separators=(",", ":")) + "\n"
    trace.write_text("".join(lines))
    result = lfdsl("replay", str(trace), "--quiet")
    assert_clean_end(result, exits=(2,), where=(str(trace), n + 1), secrets=(CANARY,))
    event["data"]["choice"] = ["a"]
    lines[n] = json.dumps(event, separators=(",", ":")) + "\n"
    trace.write_text("".join(lines))
    result = lfdsl("replay", str(trace), "--quiet")
    assert_clean_end(result, exits=(2,), where=(str(trace), n + 1), secrets=(CANARY,))
    assert "the `choice` of a choice event must be the label of an option" in result[2]


def test_a_malformed_line_inside_a_trace_is_positioned(tmp_path):
    trace = _trace(tmp_path)
    lines = trace.read_text().splitlines(keepends=True)
    lines[3] = "{oops\n"
    trace.write_text("".join(lines))
    result = lfdsl("replay", str(trace), "--quiet")
    assert_clean_end(result, exits=(2,), where=(str(trace), 4))
    assert "not a JSON trace event" in result[2]


def test_a_trace_over_the_size_cap_is_refused_unread(tmp_path):
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(TRACE_MAX_BYTES + 1)  # sparse: no disk used
    result = lfdsl("replay", str(big))
    assert_clean_end(result, exits=(2,), whole_file=str(big))
    assert "file too large" in result[2]


def test_a_trace_of_150_megabytes_replays_in_bounded_memory(tmp_path):
    """150 MB of tiny events after a real setup: read as a stream, under the 1 GiB address-space
    limit of the hostile runs (reading it whole, with a dictionary per event, takes over 3 GB)."""
    trace = _trace(tmp_path)
    setup = trace.read_text().splitlines(keepends=True)[0]
    tiny = b'{"seq":2,"round":0,"phase":null,"player":null,"event":"log","data":{"text":"x"}}\n'
    big = trace.parent / "big.jsonl"
    with open(big, "wb") as f:
        f.write(setup.encode())
        block = tiny * 20_000
        for _ in range(150 * 2 ** 20 // len(block)):
            f.write(block)
    assert big.stat().st_size > 150 * 10 ** 6
    code, out, err, _ = result = lfdsl("replay", str(big), "--quiet")
    assert_clean_end(result, exits=(1,), secrets=(CANARY,))
    assert "differs from line 2" in out, err


def test_replay_does_not_write_over_the_trace_it_reads(tmp_path, capsys):
    trace = _trace(tmp_path)
    before = trace.read_bytes()
    assert cli.main(["replay", str(trace), "--quiet", "--trace", str(trace)]) == cli.EXIT_STATIC
    assert "would write over the trace being replayed" in capsys.readouterr().err
    assert trace.read_bytes() == before


def test_errors_are_placed_under_the_value_in_the_trace(tmp_path):
    trace = _edited_trace(_trace(tmp_path), cards="/etc/passwd")
    with pytest.raises(ReplayError) as info:
        replay(trace)
    d = info.value.diagnostics[0]
    assert (d.path, d.line) == (str(trace), 1)
    assert d.source_line[d.col - 1:d.end_col - 1] == '"/etc/passwd"'


def test_errors_are_placed_under_the_value_in_the_save(tmp_path):
    save = _edited_save(_save(tmp_path), agents="human:depth=3")
    with pytest.raises(SaveError) as info:
        Table.resume(save)
    d = info.value.diagnostics[0]
    assert d.path == str(save) and d.line == _line(save, "agents")
    assert d.source_line[d.col - 1:].startswith("depth=3")


def test_old_saves_are_refused_with_a_clear_error(tmp_path):
    """A save written before paths were named from the save's folder names them as given on the
    command line (here absolute): it is refused as naming a file the way a ruleset may not."""
    save = _save(tmp_path)
    data = json.loads(save.read_text())
    absolute = {str(save.parent / k): v for k, v in data["files"].items()}
    bad = _edited_save(save, ruleset=str(save.parent / "ok.lf"), files=absolute, search=[])
    _, _, err, _ = _resumed(bad, line=_line(bad, "ruleset"))
    assert "a saved game may only name files by a path relative to its own folder" in err


def test_a_resumed_game_is_refused_before_the_table_opens(tmp_path):
    """`lfdsl play --resume` loads the save before Textual starts: a bad save ends the command."""
    save = _edited_save(_save(tmp_path), files={})
    result = lfdsl("play", "--resume", str(save))
    assert_clean_end(result, exits=(2,))
    assert "\x1b[" not in result[1]  # no screen was drawn
