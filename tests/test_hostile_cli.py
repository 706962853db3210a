"""Hostile command-line values: every number and choice an option takes is bounded, and a wrong one
ends with `--option:1:col: message` at the value, exit 2, under the CPU limit of tests/test_hostile.py;
a library of an optional extra that is missing is named with the extra to install.

Each command runs in a subprocess (tests/test_hostile.py's `lfdsl`), with a canary in its
environment that must never be printed.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from interpreter.lab import evalfit, tune

from .fuzzing import PYTHON_WORDING
from .test_hostile import CANARY, ROOT, assert_clean_end, lfdsl

DUEL = str(ROOT / "rulesets" / "duel.lf")  # 2 players, an `evaluate` block, the parameter fire_goal
HUGE = "9" * 5000
SEATS = "seat win rates equal"


def refused_at(option: str, *argv: str, message: str | None = None):
    """The command ends with exit 2 and a positioned error at `option`, in our words only."""
    result = lfdsl(*argv)
    assert_clean_end(result, exits=(2,), secrets=(CANARY,), where=(option, 1))
    _, out, err, _ = result
    assert not PYTHON_WORDING.search(err), err
    assert "internal error" not in err, err
    if message is not None:
        assert message in err, err
    return err


CASES = [
    ("--players", ["run", DUEL, "--players", "0"], "--players must be at least 1, not 0"),
    ("--players", ["run", DUEL, "--players", "99"], "--players must be at most 16, not 99"),
    ("--players", ["run", DUEL, "--players", HUGE], "not a value of 5,000 characters"),
    ("--players", ["run", DUEL, "--players", "3"], "is played by 2 players, not 3"),
    ("--players", ["tournament", str(ROOT / "rulesets" / "solo.lf"), "--bots", "first,random"], "needs at least 2"),
    ("--seed", ["run", DUEL, "--seed", HUGE], "--seed must be at most 9,223,372,036,854,775,807"),
    ("--seed", ["run", DUEL, "--seed", "-1"], "--seed must be at least 0, not -1"),
    ("--seed", ["simulate", DUEL, "--seed", "9223372036854775800", "--games", "10"], "would run past"),
    ("--seed-b", ["compare", DUEL, "--seed-b", HUGE], "--seed-b must be at most"),
    ("--set", ["run", DUEL, "--set", f"fire_goal={HUGE}"], "`fire_goal` takes a whole number from"),
    ("--set-a", ["compare", DUEL, "--set-a", f"fire_goal={HUGE}"], "`fire_goal` takes a whole number from"),
    ("--set-b", ["compare", DUEL, "--set-b", f"fire_goal={HUGE}"], "`fire_goal` takes a whole number from"),
    ("--sweep", ["simulate", DUEL, "--sweep", f"fire_goal=1..{HUGE}"], "the range's end"),
    ("--sweep", ["simulate", DUEL, "--sweep", f"fire_goal={HUGE},3"], "`fire_goal` takes a whole number from"),
    ("--sweep", ["simulate", DUEL, "--sweep", "fire_goal=" + ",".join(map(str, range(200)))], "at most 100 values"),
    ("--param", ["tune", DUEL, "--param", f"fire_goal={HUGE}..9", "--target", SEATS], "the range's end"),
    ("--target", ["tune", DUEL, "--param", "fire_goal=5..9", "--target", f"median rounds {HUGE}"], "10,000 rounds"),
    ("--trials", ["tune", DUEL, "--param", "fire_goal=5..9", "--target", SEATS, "--trials", "0"], "at least 1"),
    ("--trials", ["tune", DUEL, "--param", "fire_goal=5..9", "--target", SEATS, "--trials", HUGE], "at most 1,000"),
    ("--games", ["simulate", DUEL, "--games", "0"], "--games must be at least 1, not 0"),
    ("--games", ["simulate", DUEL, "--games", "-1"], "--games must be at least 1, not -1"),
    ("--games", ["simulate", DUEL, "--games", HUGE], "--games must be at most 100,000"),
    ("--games", ["tournament", DUEL, "--bots", "first,random", "--games", HUGE], "--games must be at most"),
    ("--games", ["fit-eval", DUEL, "--games", "1"], "--games must be at least 2, not 1"),
    ("--every", ["fit-eval", DUEL, "--every", HUGE], "--every must be at most 1,000,000"),
    ("--workers", ["simulate", DUEL, "--workers", "0"], "--workers must be at least 1, not 0"),
    ("--workers", ["simulate", DUEL, "--workers", HUGE], "--workers must be at most 256"),
    ("--view", ["run", DUEL, "--view", "P3"], "--view takes a player from P1 to P2"),
    ("--view", ["run", DUEL, "--view", "P" + HUGE], "--view takes a player from P1 to P2"),
    ("--bots", ["tournament", DUEL, "--bots", "random"], "a tournament takes 2 to 16 bots, not 1"),
    ("--bots", ["tournament", DUEL, "--bots", ",".join(["first"] * 17)], "a specification names at most 16 agents"),
    ("--agents", ["run", DUEL, "--agents", "first,first,first"], "3 agents for 2 players"),
    ("--agents", ["simulate", DUEL, "--agents", "human"], "`human` is a person at the table"),
    # `play` fails before its table opens (a test has no terminal for Textual)
    ("--agents", ["play", DUEL, "--agents", "human,human,human"], "3 agents for 2 players"),
    ("--agents", ["play", DUEL, "--agents", "random,random,random"], "3 agents for 2 players"),
    ("--players", ["play", DUEL, "--players", "0"], "--players must be at least 1, not 0"),
    ("--seat", ["play", DUEL, "--seat", "3"], "--seat takes a seat from 1 to 2, not 3"),
    ("--seat", ["play", DUEL, "--seat", HUGE], "--seat must be at most 16"),
    ("--seed", ["play", DUEL, "--seed", HUGE], "--seed must be at most"),
]


@pytest.mark.parametrize("option, argv, message", CASES, ids=[f"{c[1][0]}{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_bad_value_is_refused_at_its_option(option, argv, message):
    refused_at(option, *argv, message=message)


@pytest.mark.parametrize("option, argv, message", [
    ("--games", ["simulate", DUEL, "--games", HUGE], "not a value of 5,000 characters"),
    ("--set", ["run", DUEL, "--set", "a" * 5000 + "=1"], "no parameter a name of 5,000 characters"),
    ("--sweep", ["simulate", DUEL, "--sweep", "a" * 5000 + "=1,2"], "no parameter a name of 5,000 characters"),
    ("--target", ["tune", DUEL, "--param", "fire_goal=5..9", "--target", "a" * 5000], "no target a target of 5,000"),
])
def test_a_huge_value_is_shown_cut_not_whole(option, argv, message):
    """The message names a long value by its length; only the source line shows it, cut."""
    err = refused_at(option, *argv, message=message)
    assert len(err) < 2000, err[:300]


def test_a_scenario_parameter_outside_the_engine_integers(tmp_path):
    scenario = tmp_path / "big.toml"
    scenario.write_text('title = "t"\nplayers = 2\nseed = 1\n\n[params]\nfire_goal = 99999999999999999999\n\n'
                        '[[step]]\nexpect = ["1 == 1"]\n')
    result = lfdsl("test", DUEL, str(scenario))
    assert_clean_end(result, exits=(2,), secrets=(CANARY,), where=(str(scenario), 6))
    assert "the number is outside the engine's range" in result[2]


@pytest.mark.parametrize("command, module, extra", [
    (["simulate", DUEL, "--games", "1"], "rich", "lab"),
    (["simulate", DUEL, "--games", "1"], "scipy", "lab"),
    (["fit-eval", DUEL, "--games", "2"], "statsmodels", "lab"),
    (["tune", DUEL, "--param", "fire_goal=5..9", "--target", SEATS], "optuna", "tune"),
    (["tune", DUEL, "--param", "fire_goal=5..9", "--target", SEATS], "rich", "tune"),
    (["play", DUEL], "textual", "play"),
    (["play", DUEL], "rich", "play"),
    (["lsp"], "pygls", "lsp"),
])
def test_a_missing_extra_is_named(command, module, extra):
    code, out, err, _ = lfdsl(*command, without=(module,))
    assert code == 2, err
    assert f"`lfdsl {command[0]}` needs the optional extra `{extra}` ({module} is not installed): " \
           f"pip install 'lfdsl[{extra}]'" in err, err
    assert "internal error" not in err and "fault of lfdsl" not in err, err
    assert not PYTHON_WORDING.search(err), err


def test_the_environments_name_their_extra():
    code = "import sys\nsys.modules['gymnasium'] = None\nimport interpreter.env"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "ModuleNotFoundError: the learning environments need the optional extra `rl` (gymnasium is not " \
           "installed): pip install 'lfdsl[rl]'" in proc.stderr, proc.stderr


def test_fit_eval_on_positions_of_one_game_says_so():
    """Intervals clustered by game need two games; one game's positions are refused in words."""
    rows = [(0, [({"a": float(i)}, float(i)), ({"a": float(-i)}, float(-i))], {0}) for i in range(6)]
    with pytest.raises(evalfit.FitError, match="need positions of at least 2"):
        evalfit.fit(["a"], rows, 2, 1, 1)


def test_fit_eval_on_as_many_positions_as_weights_says_so():
    """No degree of freedom is left for the interval: refused in words, not divided by zero."""
    rows = [(0, [({"a": 1.0}, 1.0)], {0}), (1, [({"a": 3.0}, 0.0)], set())]
    with pytest.raises(evalfit.FitError, match="2 positions kept, too few to weigh 1 score"):
        evalfit.fit(["a"], rows, 1, 2, 2)


def test_tune_takes_any_seed_of_the_command_line():
    """The sampler's generator takes seeds below 2^32; the command line's go to 2^63-1."""
    def simulate(params):
        return {"seats": [{"win_rate": 0.5}, {"win_rate": 0.5}]}, []
    result = tune.search({"n": (1, 3)}, ("seats", None), 2, 2 ** 62, simulate)
    assert len(result["trials"]) == 2
    assert tune.search({"n": (1, 3)}, ("seats", None), 2, 2 ** 32 + 5, simulate)["trials"] == \
        tune.search({"n": (1, 3)}, ("seats", None), 2, 5, simulate)["trials"]


def test_leading_zeros_do_not_make_a_small_number_huge():
    """Thousands of leading zeros are a number's padding, not its size: the value is read, and
    a number past the bounds is still refused without converting every digit."""
    from interpreter.tools.options import BoundError, whole
    assert whole("0" * 5000 + "5", 1, 10) == 5
    assert whole("-" + "0" * 5000 + "5", -10, 10) == -5
    assert whole("-0", -1, 1) == 0
    with pytest.raises(BoundError, match="at most 10"):
        whole("0" * 5000 + "11", 1, 10)
