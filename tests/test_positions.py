"""Every bad input is positioned: card databases, scenario files and `--set` values are reported as
`file:line:col: message`, the source line and a caret, never with Python wording."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.tools.cli import main
from interpreter.engine import Engine
from interpreter.compile.params import ParamError
from interpreter.tools.scenario import ScenarioError, run_scenario
from rulesdsl.cards import cross_check, load_cards, merge_cards
from rulesdsl.checker import check
from rulesdsl.errors import CardError, LanguageError
from rulesdsl.parser import parse_file
from rulesdsl.tomlpos import TomlMap

ROOT = Path(__file__).resolve().parent.parent
CARDS = "tests/errors/cards"
SCENARIOS = "tests/errors/scenarios"
BASE = "rulesets/base.lf"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    """Paths are shown as given: run from the repository root so they read `tests/errors/...`."""
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def kinds():
    return check(parse_file(ROOT / BASE)).kinds


@pytest.fixture(scope="module")
def engine():
    return Engine.load(ROOT / BASE)


def card_error(name, kinds) -> str:
    with pytest.raises(CardError) as info:
        load_cards(f"{CARDS}/{name}", kinds)
    return info.value.render()


def block(*lines) -> str:
    return "\n".join(lines)


# ---- card databases --------------------------------------------------------------------------
def test_card_unknown_field_at_its_key(kinds):
    assert card_error("unknown_field.toml", kinds) == block(
        f"{CARDS}/unknown_field.toml:4:1: Animal card 'Beetle': unknown field 'suns' (did you mean `sun`?)",
        "    suns = 3",
        "    ^")


def test_card_quoted_key_and_spaced_header(kinds):
    assert card_error("quoted_key.toml", kinds) == block(
        f"{CARDS}/quoted_key.toml:4:1: Animal card 'Heron': unknown field 'suns' (did you mean `sun`?)",
        '    "suns" = 2',
        "    ^")


def test_card_missing_field_at_the_header(kinds):
    assert card_error("missing_field.toml", kinds) == block(
        f"{CARDS}/missing_field.toml:6:1: Fire card 'Fire 3': missing field 'value'",
        "    [[Fire]]",
        "    ^")


def test_card_wrong_type_at_the_value(kinds):
    assert card_error("wrong_type.toml", kinds) == block(
        f'{CARDS}/wrong_type.toml:8:7: Animal card \'Lynx\': field \'sun\': expected int, got "two"',
        '    sun = "two"',
        "          ^")


def test_card_bad_enum_at_the_value(kinds):
    assert card_error("bad_enum.toml", kinds) == block(
        f'{CARDS}/bad_enum.toml:4:8: Animal card \'Fox\': field \'type\': "solitry" is not one of solitary, '
        "gregarious, neutral (did you mean `solitary`?)",
        '    type = "solitry"',
        "           ^")


def test_card_that_is_not_a_table_at_each_element(kinds):
    assert card_error("not_a_table.toml", kinds) == block(
        f"{CARDS}/not_a_table.toml:2:11: Animal [[Animal]] #1: each card must be a table, got 1",
        "    Animal = [1, 2]",
        "              ^",
        f"{CARDS}/not_a_table.toml:2:14: Animal [[Animal]] #2: each card must be a table, got 2",
        "    Animal = [1, 2]",
        "                 ^")


def test_card_unknown_table_at_its_header(kinds):
    assert card_error("unknown_table.toml", kinds) == block(
        f"{CARDS}/unknown_table.toml:2:1: table [[Animals]] is not a card kind of the ruleset; "
        "did you mean `Animal`?",
        "    [[Animals]]",
        "    ^")


def test_card_duplicate_names_where_the_first_is(kinds):
    assert card_error("duplicate_name.toml", kinds) == block(
        f"{CARDS}/duplicate_name.toml:6:1: Animal card 'Owl': a second card with this name "
        f"(the first is at {CARDS}/duplicate_name.toml:2)",
        "    [[Animal]]",
        "    ^")


def test_card_unterminated_string_at_end_of_file(kinds):
    assert card_error("unterminated_at_end.toml", kinds) == block(
        f"{CARDS}/unterminated_at_end.toml:3:14: not valid TOML: unterminated string",
        '    name = """Bee',
        "                 ^")


def test_card_invalid_toml_in_plain_words(kinds):
    assert card_error("invalid_toml.toml", kinds) == block(
        f"{CARDS}/invalid_toml.toml:5:19: not valid TOML: a line end is not allowed here "
        "(is a closing quote missing?)",
        '    type = "gregarious',
        "                      ^")


def test_card_invalid_utf8_at_the_first_bad_byte(kinds):
    assert card_error("not_utf8.toml", kinds) == block(
        f"{CARDS}/not_utf8.toml:3:10: not valid UTF-8",
        '    name = "B\ufffdee"',
        "             ^")


def test_card_action_that_is_not_an_action(tmp_path):
    (tmp_path / "c.toml").write_text('[[Token]]\nname = "Red"\n\n[[Token]]\nname = "Blue"\nbonus = "go_hom"\n')
    (tmp_path / "r.lf").write_text(
        'game "G" { players 2..3 cards "c.toml" }\nkind Token { bonus: action = none }\n'
        "counter n = 0\naction go_home(p) { set n += 1 }\n"
        "round { phase x each p { actions 1 for p from go_home } }\n"
        "victory for p after x { win if n > 3 rank by n }\n")
    model = check(parse_file(tmp_path / "r.lf"))
    db = load_cards(tmp_path / "c.toml", model.kinds)
    with pytest.raises(CardError) as info:
        cross_check(model, db)
    assert info.value.render() == block(
        f"{tmp_path / 'c.toml'}:6:9: Token card 'Blue': field 'bonus': 'go_hom' is not an action of the "
        "ruleset (did you mean `go_home`?)",
        '    bonus = "go_hom"',
        "            ^")


def test_card_duplicate_across_merged_databases(kinds):
    dbs = [load_cards(f"{CARDS}/merge_first.toml", kinds), load_cards(f"{CARDS}/merge_second.toml", kinds)]
    with pytest.raises(CardError) as info:
        merge_cards(dbs)
    assert info.value.render() == block(
        f"{CARDS}/merge_second.toml:3:1: Animal card 'Crane' is already in {CARDS}/merge_first.toml:2",
        "    [[Animal]]",
        "    ^")


def test_real_card_databases_load_with_positions(kinds):
    db = load_cards("cards/base.toml", kinds)
    first = db.defs[0]
    assert first.where()[:2] == (5, 1) and first.where("plant")[:2] == (9, 9)


def test_toml_map_follows_escapes_inside_strings():
    where = TomlMap('a = ["x", "\\"q\\" \\u00e9 z"]\n[[t]]\n[t.sub]\nk = 1\n')
    assert where.value(("a", 1)) == (1, 11)
    assert where.in_string(("a", 1), 4) == (1, 18)  # after `\"q\" `: escapes take two characters
    assert where.in_string(("a", 1), 6) == (1, 25)  # after the six-character `\u00e9` and a space
    assert where.key(("t", 0, "sub", "k")) == (4, 1)


# ---- scenario files --------------------------------------------------------------------------
def scenario_error(engine, name) -> str:
    with pytest.raises(ScenarioError) as info:
        run_scenario(engine, f"{SCENARIOS}/{name}")
    assert isinstance(info.value, LanguageError)
    return info.value.render()


def test_scenario_error_is_a_language_error_with_exit_code_2(capsys):
    assert main(["test", BASE, f"{SCENARIOS}/step_not_tables.toml"]) == 2
    err = capsys.readouterr().err
    assert err == block(f"{SCENARIOS}/step_not_tables.toml:2:8: `step` takes [[step]] tables, not 5",
                        "    step = 5", "           ^", "lfdsl: 1 error(s) (scenario)") + "\n"


def test_scenario_counter_takes_a_whole_number(engine):
    assert scenario_error(engine, "counter_not_number.toml") == block(
        f'{SCENARIOS}/counter_not_number.toml:8:18: `start.counters."P1.fragments"` takes a whole number, '
        'not "lots"',
        '    "P1.fragments" = "lots"',
        "                     ^")


def test_scenario_seat_out_of_range(engine):
    assert scenario_error(engine, "seat_out_of_range.toml") == block(
        f"{SCENARIOS}/seat_out_of_range.toml:6:10: seat 99 does not exist: seats are 1 to 2",
        "    player = 99",
        "             ^")


def test_scenario_track_space_out_of_range(engine):
    assert scenario_error(engine, "track_space.toml") == block(
        f"{SCENARIOS}/track_space.toml:8:6: track `circle` has spaces 0 to 11, not 98",
        "    P1 = 98",
        "         ^")


def test_scenario_unknown_key_with_hint(engine):
    assert scenario_error(engine, "unknown_key.toml") == block(
        f"{SCENARIOS}/unknown_key.toml:5:1: unknown key `choise` in step 1; allowed: choose, expect, illegal, "
        "legal, note, options, over, player, prompt, ranking, reason, scores, winners (did you mean `choose`?)",
        '    choise = "attract"',
        "    ^")


def test_scenario_expectation_error_inside_the_string(engine):
    assert scenario_error(engine, "expect_typo.toml") == block(
        f"{SCENARIOS}/expect_typo.toml:6:42: in `player(1).fragmnts == 0`: players have no zone, counter or "
        "grid `fragmnts`",
        '    expect = ["count(player(1).line) == 0", "player(1).fragmnts == 0"]',
        "                                             ^^^^^^^^^^^^^^^^^^",  # the whole `player(1).fragmnts`
        "    hint: did you mean `fragments`?")


def test_scenario_params_typed_and_positioned(engine):
    assert scenario_error(engine, "bad_params.toml") == block(
        f'{SCENARIOS}/bad_params.toml:5:8: `goal` takes a whole number, not "10"',
        '    goal = "10"',
        "           ^",
        f"{SCENARIOS}/bad_params.toml:6:12: `fire_cap` may not be negative: it is used as a zone's limit",
        "    fire_cap = -1",
        "               ^",
        f"{SCENARIOS}/bad_params.toml:7:1: the ruleset has no parameter `nope`",
        "    nope = 1",
        "    ^")


def test_scenario_invalid_toml(engine):
    assert scenario_error(engine, "invalid_toml.toml") == block(
        f"{SCENARIOS}/invalid_toml.toml:3:22: not valid TOML: a line end is not allowed here "
        "(is a closing quote missing?)",
        '    title = "never closed',
        "                         ^")


def test_failed_comparison_shows_both_sides(capsys):
    assert main(["test", BASE, f"{SCENARIOS}/failing_comparison.toml"]) == 1
    out = capsys.readouterr().out
    assert "  FAIL: step 1: player(1).fragments == 3: left side is 0, right side is 3" in out.splitlines()


def test_a_result_names_seats_that_exist(engine):
    assert scenario_error(engine, "result_seat_out_of_range.toml") == block(
        f"{SCENARIOS}/result_seat_out_of_range.toml:5:15: seat 3 does not exist: seats are 1 to 2",
        "    winners = [1, 3]",
        "                  ^")


def test_scores_name_a_seat_and_a_victory_count(engine):
    assert scenario_error(engine, "result_not_a_seat.toml") == block(
        f"{SCENARIOS}/result_not_a_seat.toml:5:12: `Alice` is not a seat: write P1, P2, ...",
        "    scores = { Alice = { fires = 2 } }",
        "               ^")
    assert scenario_error(engine, "result_unknown_count.toml") == block(
        f"{SCENARIOS}/result_unknown_count.toml:5:19: no victory count `fire`; counts: fires, flowers, trees",
        "    scores = { P1 = { fire = 2 } }",
        "                      ^",
        "    hint: did you mean `fires`?")


def test_a_result_asked_of_a_running_game_fails_in_plain_words(capsys):
    assert main(["test", BASE, f"{SCENARIOS}/result_not_over.toml"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "  FAIL: step 1: the game is over (it is not: P1 decides `choose`)" in lines
    assert "  FAIL: step 1: winners: the game is not over (P1 decides `choose`)" in lines


def test_scenario_errors_have_no_traceback_in_a_subprocess():
    r = subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "test", BASE,
                        f"{SCENARIOS}/counter_not_number.toml"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "Error" not in r.stderr and "not supported" not in r.stderr


# ---- --set values ----------------------------------------------------------------------------
def set_error(params) -> str:
    with pytest.raises(ParamError) as info:
        Engine.load(ROOT / BASE, params=params)
    return info.value.render()


def test_set_value_is_positioned_with_the_argument_as_typed():
    assert set_error({"goal": "lots"}) == block(
        "--set:1:6: `goal` takes a whole number, not `lots`",
        "    goal=lots",
        "         ^")


def test_set_unknown_parameter_points_at_the_name():
    assert set_error({"goal": "3", "gaol": "3"}) == block(
        "--set:2:1: the ruleset has no parameter `gaol`",
        "    gaol=3",
        "    ^",
        "    hint: did you mean `goal`?")


@pytest.mark.parametrize("raw", ["\u0663", "\uff13", "1_000", "+3", " 3", "3 ", "0x3", ""])
def test_set_whole_numbers_are_ascii_digits_only(raw):
    assert set_error({"goal": raw}).splitlines()[0] == f"--set:1:6: `goal` takes a whole number, not `{raw}`"


def test_set_accepts_ascii_digits_and_a_minus():
    assert Engine.load(ROOT / BASE, params={"goal": "10"}).params["goal"] == 10
    assert Engine.load(ROOT / BASE, params={"fire_solitary_stop": "-2"}).params["fire_solitary_stop"] == -2


def test_set_allowed_values_through_the_command_line(capsys):
    assert main(["run", "rulesets/solo.lf", "--set", "difficulty=12", "--quiet"]) == 2
    assert capsys.readouterr().err == block(
        "--set:1:12: `difficulty` may be 1..9, not `12`",
        "    difficulty=12",
        "               ^",
        "    hint: the ruleset declares `param difficulty = ... from 1..9`",
        "lfdsl: 1 error(s) (params)") + "\n"


def test_set_value_with_a_space_is_refused_on_the_command_line(capsys):
    assert main(["check", BASE, "--set", "goal= 3"]) == 2
    assert "--set:1:6: `goal` takes a whole number, not ` 3`" in capsys.readouterr().err


# ---- parameters used as counts or limits -----------------------------------------------------
def test_param_used_as_a_zone_limit_cannot_be_negative():
    assert set_error({"fire_cap": "-1"}) == block(
        "--set:1:10: `fire_cap` may not be negative: it is used as a zone's limit",
        "    fire_cap=-1",
        "             ^")
    assert Engine.load(ROOT / BASE, params={"fire_cap": "0"}).params["fire_cap"] == 0


@pytest.mark.parametrize("use, what", [
    ("zone shelf: row of Token limit k", "a zone's limit"),
    ("counter m = 0 max k", "a counter's `max`"),
    ("action more(p) { repeat k { set n += 1 } }", "a `repeat` count"),
    ("def upto() = count(1..k)", "the end of a range"),
])
def test_param_uses_that_forbid_negative_values(tmp_path, use, what):
    (tmp_path / "c.toml").write_text('[[Token]]\nname = "Red"\n')
    (tmp_path / "r.lf").write_text(
        'game "G" { players 2..3 cards "c.toml" }\nkind Token { v: int = 0 }\nparam k = 2\ncounter n = 0\n'
        + use + "\n"
        "action go(p) { set n += 1 }\n"
        "round { phase x each p { actions 1 for p from go" + (", more" if "more" in use else "") + " } }\n"
        "victory for p after x { win if n > 3 rank by n }\n")
    with pytest.raises(ParamError) as info:
        Engine.load(tmp_path / "r.lf", params={"k": "-1"})
    assert info.value.render().splitlines()[0] == f"--set:1:3: `k` may not be negative: it is used as {what}"


def test_param_in_a_larger_expression_or_negative_by_default_may_be_negative(tmp_path):
    (tmp_path / "c.toml").write_text('[[Token]]\nname = "Red"\n')
    (tmp_path / "r.lf").write_text(
        'game "G" { players 2..3 cards "c.toml" }\nkind Token { v: int = 0 }\nparam k = 2\nparam low = -3\n'
        "counter n = 0 min low\nzone shelf: row of Token limit k + 5\n"
        "action go(p) { set n += 1 }\nround { phase x each p { actions 1 for p from go } }\n"
        "victory for p after x { win if n > 3 rank by n }\n")
    engine = Engine.load(tmp_path / "r.lf", params={"k": "-1", "low": "-5"})
    assert engine.params == {"k": -1, "low": -5}
