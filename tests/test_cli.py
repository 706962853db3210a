"""The command line: exit codes per step, positioned errors, never a traceback for bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from interpreter.tools.cli import main

from .conftest import ROOT

BASE = str(ROOT / "rulesets" / "base.lf")


def test_check_ok(capsys):
    assert main(["check", BASE]) == 0
    assert "ok: Living Forest" in capsys.readouterr().out


def test_check_reports_all_errors_with_positions(tmp_path, capsys):
    bad = tmp_path / "bad.lf"
    bad.write_text('game "B" { players 2..2 }\ncounter n = 0\nround {\n  phase a each p {\n'
                   '    set n += tru\n    set m += 1\n  }\n}\n')
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:5:14: unknown name `tru`" in err
    assert "did you mean `true`?" in err
    assert f"{bad}:6:9: unknown name `m`" in err
    assert "^" in err and "Traceback" not in err
    assert "2 error(s) (check)" in err


def test_parse_error_exit_code(tmp_path, capsys):
    bad = tmp_path / "bad.lf"
    bad.write_text('game "B" { players 2..2 \n')
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:" in err and "(parse)" in err


def test_card_error_exit_code(tmp_path, capsys):
    cards = tmp_path / "c.toml"
    cards.write_text('[[Animal]]\nname = "Lynx"\nsun = "two"\n')
    assert main(["check", BASE, "--cards", str(cards)]) == 2
    err = capsys.readouterr().err
    assert "card 'Lynx'" in err and "field 'sun'" in err and "(cards)" in err


def test_missing_file(capsys):
    assert main(["check", "no/such/file.lf"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_run_prints_a_winner_and_writes_a_trace(tmp_path, capsys):
    trace = tmp_path / "t.jsonl"
    assert main(["run", BASE, "--players", "4", "--seed", "1", "--trace", str(trace)]) == 0
    out = capsys.readouterr().out
    assert "== game over ==" in out and "winner" in out
    lines = trace.read_text().splitlines()
    events = [json.loads(x) for x in lines]
    assert events[-1]["event"] == "game_end" and events[-1]["data"]["winners"]
    assert sum(e["event"] == "state" for e in events) == events[-1]["round"]


def test_run_set_unknown_parameter(capsys):
    assert main(["run", BASE, "--set", "nope=3"]) == 2
    assert "no parameter `nope`" in capsys.readouterr().err


def _traced_run(path, *extra) -> list[dict]:
    assert main(["run", BASE, "--players", "2", "--seed", "2", "--quiet", "--trace", str(path), *extra]) == 0
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_run_set_parameter_changes_the_game(tmp_path, capsys):
    """`--set goal=4` lowers the victory threshold of base.lf (12 by default) and nothing else: the
    game is the default game, event for event, until a player first has 4 of a category; it ends
    there, with exactly the players at 4 or more as the ones who reached the goal."""
    default = _traced_run(tmp_path / "default.jsonl")
    lowered = _traced_run(tmp_path / "goal4.jsonl", "--set", "goal=4")
    assert (default[0]["data"]["set"], default[0]["data"]["params"]["goal"]) == ({}, 12)
    assert (lowered[0]["data"]["set"], lowered[0]["data"]["params"]["goal"]) == ({"goal": "4"}, 4)

    end = len(lowered) - 1
    assert lowered[end]["event"] == "game_end" and default[end]["event"] != "game_end"
    assert lowered[1:end] == default[1:end]
    result, default_result = lowered[end]["data"], default[-1]["data"]
    assert result["round"] < default_result["round"]
    for seat, counts in result["counts"].items():
        assert (max(counts.values()) >= 4) == (seat in result["reached"]), (seat, counts)
    assert result["reached"] and result["winners"]
    for seat in default_result["reached"]:
        assert max(default_result["counts"][seat].values()) >= 12


def test_runtime_error_exit_code(capsys):
    assert main(["run", str(ROOT / "tests/rulesets/loop.lf"), "--players", "1"]) == 3
    err = capsys.readouterr().err
    assert "more than 500 steps" in err and "loop.lf:1" in err


def test_scenario_command(capsys):
    path = str(ROOT / "tests/scenarios/base/attract_marmot.toml")
    assert main(["test", BASE, path]) == 0
    assert "0 failed" in capsys.readouterr().out


def test_failing_scenario_exit_code(tmp_path, capsys):
    bad = tmp_path / "s.toml"
    bad.write_text('players = 2\nseed = 1\n[[step]]\nprompt = "no such prompt"\n')
    assert main(["test", BASE, str(bad)]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_bad_scenario_file(tmp_path, capsys):
    bad = tmp_path / "s.toml"
    bad.write_text('players = 2\nbogus = 1\n')
    assert main(["test", BASE, str(bad)]) == 2
    assert "s.toml:2:1: unknown key `bogus`" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["check", "x.lf"], ["run", BASE, "--agents", "nobody"],
                                  ["run", BASE, "--players", "9"]])
def test_no_traceback_in_a_subprocess(argv):
    r = subprocess.run([sys.executable, "-m", "interpreter.tools.cli", *argv], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and r.stderr.strip()


def test_closed_pipe_ends_quietly():
    """`lfdsl run ... | head -1`: the reader leaves early; the run ends with exit 0 and no message."""
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.tools.cli", "run", str(ROOT / "rulesets" / "duel.lf")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err
    assert first.startswith(b"Living Forest Duel:")
    assert b"Broken pipe" not in err and b"Errno" not in err and b"Traceback" not in err


@pytest.mark.parametrize("ruleset, players", [("duel.lf", "2 players"), ("solo.lf", "1 player"),
                                              ("base.lf", "2-4 players")])
def test_player_counts_read_as_english(ruleset, players, capsys):
    path = str(ROOT / "rulesets" / ruleset)
    assert main(["check", path]) == 0
    out = capsys.readouterr().out
    assert f", {players}, " in out
    assert "2-2" not in out and "1-1" not in out and "1 players" not in out


def test_run_header_and_errors_use_singular_and_plural(capsys):
    solo = str(ROOT / "rulesets" / "solo.lf")
    assert main(["run", solo, "--quiet"]) == 0
    assert ": 1 player, seed 1" in capsys.readouterr().out.splitlines()[0]
    assert main(["run", solo, "--players", "2"]) == 2
    assert "is played by 1 player, not 2" in capsys.readouterr().err
    assert main(["run", str(ROOT / "rulesets" / "duel.lf"), "--players", "3"]) == 2
    assert "is played by 2 players, not 3" in capsys.readouterr().err
    assert main(["run", str(ROOT / "rulesets" / "duel.lf"), "--agents", "first,first,first"]) == 2
    assert "3 agents for 2 players" in capsys.readouterr().err


HANDS = str(ROOT / "tests" / "rulesets" / "hands.lf")


def test_run_view_masks_what_the_player_does_not_see(capsys):
    assert main(["run", HANDS, "--seed", "2"]) == 0
    full = capsys.readouterr().out
    assert main(["run", HANDS, "--seed", "2", "--view", "P1"]) == 0
    mine = capsys.readouterr().out
    assert "?: stock -> P2.hand" in mine and "?: stock -> P2.hand" not in full
    assert "? in stock shown to P2" in mine and "? in stock shown to P2" not in full
    assert main(["run", HANDS, "--view", "P9"]) == 2
    assert "--view takes a player from P1 to P2" in capsys.readouterr().err


def test_run_writes_one_trace_per_player(tmp_path, capsys):
    out = tmp_path / "views"
    assert main(["run", HANDS, "--seed", "2", "--quiet", "--trace-per-player", str(out)]) == 0
    for me, other in (("P1", "P2"), ("P2", "P1")):
        events = [json.loads(line) for line in (out / f"{me}.jsonl").read_text().splitlines()]
        assert "seed" not in events[0]["data"]
        dealt = [e for e in events if e["event"] == "move" and e["data"]["to"] == f"{other}.hand"
                 and e["data"]["from"] == "stock"]
        assert dealt and all(e["data"]["card"] == "?" for e in dealt)
        reveals = [e for e in events if e["event"] == "reveal" and e["data"]["to"] == me]
        assert reveals and all(e["data"]["card"] != "?" for e in reveals)
