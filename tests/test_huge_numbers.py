"""Numbers outside the engine's integers (-2^63 .. 2^63-1) in the data files: a card database value
(in decimal, or in a base tomllib converts without Python's 4,300-digit limit), a number inside a
card's formula, and a scenario's value and expectation. Each is refused at its position by
`lfdsl check` or `lfdsl test`, in the engine's words: no traceback, no internal error, nothing of
Python's ("Exceeds the limit (4300 digits) for integer string conversion")."""
from __future__ import annotations

import pytest

from rulesdsl.tomlpos import long_integer

from .fuzzing import PYTHON_WORDING
from .test_hostile import GAME, ROUND, _folder, assert_clean_end, lfdsl

HUGE = "9" * 5000
FORMULAS = GAME.replace("    value: int\n", "    value: int\n    points: formula = none\n") + \
    "def flat(c, n) = n\ndef by_size(c, xs) = count(xs)\n"


def refused(result, path, line, col, message="the number is outside the engine's range (-2^63 .. 2^63-1)"):
    """The command ended on a positioned error at `path:line:col` with `message`, in plain words."""
    assert_clean_end(result, exits=(2,), where=(str(path), line))
    err = result[2]
    first = err.lstrip("\n").split("\n", 1)[0]
    assert first.startswith(f"{path}:{line}:{col}: ") and message in first, err[:2000]
    assert not PYTHON_WORDING.search(err) and "internal error" not in err, err[:2000]
    return err


@pytest.mark.parametrize("formula, col", [
    (f"flat({HUGE})", 16),
    (f"flat(-{HUGE})", 16),
    ("flat(-9223372036854775809)", 16),
    (f"by_size([1, {HUGE}])", 23),
    ("by_size([1, 9223372036854775808])", 23),
])
def test_a_number_in_a_card_formula(tmp_path, formula, col):
    (_folder(tmp_path) / "f.toml").write_text(f'[[Token]]\nname = "Owl"\npoints = "{formula}"\nvalue = 1\n')
    (tmp_path / "r.lf").write_text(FORMULAS.format(cards="f.toml") + ROUND)
    err = refused(lfdsl("check", str(tmp_path / "r.lf")), tmp_path / "f.toml", 3, col)
    caret = err.splitlines()[2]
    assert caret.strip() == "^" and err.splitlines()[1][caret.index("^"):].lstrip("-").startswith("9")
    assert max(len(line) for line in err.splitlines()) < 300  # the long formula is not repeated whole


@pytest.mark.parametrize("value", [HUGE, "-" + HUGE, "1_" * 2500 + "1", "0x" + "f" * 5000, "0o" + "7" * 30,
                                   "9223372036854775808"])
def test_a_card_value(tmp_path, value):
    # A name of thousands of digits comes first: the number is found outside the strings.
    (_folder(tmp_path) / "c.toml").write_text(
        f'# {HUGE}\n[[Token]]\nname = "x{HUGE}"\nvalue = 1\n\n[[Token]]\nname = "Big"\nvalue = {value}\n')
    (tmp_path / "r.lf").write_text(GAME.format(cards="c.toml") + ROUND)
    err = refused(lfdsl("check", str(tmp_path / "r.lf")), tmp_path / "c.toml", 8, 9)
    source, caret = err.splitlines()[1:3]
    underline = caret.strip()
    assert source.startswith("    value = ") and caret.index("^") == len("    value = ")
    shown = len(value) if len(value) < 200 else len(source) - len("    value = ...")  # a long line is cut
    assert set(underline) == {"^"} and len(underline) == shown


@pytest.mark.parametrize("line, col", [("seed = " + HUGE, 8), ("players = 0x" + "f" * 5000, 11)])
def test_a_number_in_a_scenario(tmp_path, line, col):
    # A title of thousands of digits comes first: the number is found outside the strings. (A
    # number in an expectation is read by the rules' parser, which refuses it at its place.)
    (_folder(tmp_path) / "r.lf").write_text(GAME.format(cards="tiny.toml") + ROUND)
    scenario = tmp_path / "s.toml"
    scenario.write_text(f'title = "{HUGE}"\n{line}\n')
    refused(lfdsl("test", str(tmp_path / "r.lf"), str(scenario)), scenario, 2, col)


@pytest.mark.parametrize("text, found", [
    ('v = 12345', "12345"),
    ('v = -12345', "-12345"),
    ('v = [1, 12_345]', "12_345"),
    ('v = { a = 12345 }', "12345"),
    ('n = "12345"\nv = 12345', "12345"),
    ("n = '''12345'''\n# 12345\nv = +12345", "+12345"),
    ('n = "a\\"12345"', None),      # inside a string with an escaped quote
    ('12345 = 1\n12345.b = 2', None),  # keys
    ('v = 1.12345\nw = 12345e1', None),  # floats
    ('v = 0x12345', None),           # other bases have no limit on conversion
    ('v = 1979-05-27T07:32:00Z', None),
    ('x-12345 = 1', None),
])
def test_the_toml_number_too_long_to_convert_is_found_outside_strings_keys_and_floats(text, found):
    span = long_integer(text, 4)
    assert (text[span[0]:span[1]] if span else None) == found
