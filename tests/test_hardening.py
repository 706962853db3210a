"""Ceilings and confinement: files a ruleset may name, engine-wide limits, bounded integers, and
the regression test of the definition-expansion defect."""
from __future__ import annotations

import os

import pytest

from interpreter.engine import Engine, GameError
from rulesdsl.errors import CardError, CheckError, ParseError
from rulesdsl import files

from .conftest import ROOT
from .test_language import write_rules

PLAYABLE = """
counter n = 0
round { phase x { set n += 1 } }
victory for p after x { win if n > 0 rank by 0 }
"""


def test_a_definition_compiled_during_an_expansion_reads_its_own_parameters(tmp_path):
    # `outer` is expanded in place; `sq` (its parameter used twice, with a non-trivial argument)
    # is compiled on its own during that expansion. It must read its own `i`, not the caller's.
    path = write_rules(tmp_path, """
counter got = 0 per player
def sq(i) = i * i
def outer(i) = sq(i + 1)
round { phase x each p { choose { option go {
    let k = 2
    set p.got += outer(k) + outer(4)
} } } }
victory for p after x { win if p.got > 0 rank by p.got }
""")
    engine = Engine.load(path)
    st = engine.new_game(2, 0)
    engine.apply(st, "go")
    assert st.counters["got"][0] == 9 + 25


@pytest.mark.parametrize("written", ["/etc/passwd", "../../../../../../etc/passwd", "~/x.lf"])
def test_extends_outside_the_project_is_refused_without_reading(tmp_path, written):
    (tmp_path / "r.lf").write_text(f'extends "{written}"\n')
    with pytest.raises(CheckError) as info:
        Engine.load(tmp_path / "r.lf")
    text = info.value.render()
    assert f"{tmp_path / 'r.lf'}:1:1:" in text
    assert "root:" not in text


def test_cards_outside_the_project_are_refused_at_their_line(tmp_path):
    path = write_rules(tmp_path, PLAYABLE)
    path.write_text(path.read_text().replace('cards "c.toml"', 'cards "../../etc/passwd"'))
    with pytest.raises(CardError) as info:
        Engine.load(path)
    d = info.value.diagnostics[0]
    assert (d.line, d.col) == (1, 25) and "outside the ruleset's project" in d.message


def test_a_symbolic_link_leaving_the_project_is_refused(tmp_path):
    (tmp_path / "link.lf").symlink_to("/etc/hostname")
    (tmp_path / "r.lf").write_text('extends "link.lf"\n')
    with pytest.raises(CheckError, match="outside the ruleset's project"):
        Engine.load(tmp_path / "r.lf")


def test_a_search_root_widens_the_project(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (tmp_path / "game").mkdir()
    path = write_rules(tmp_path / "game", PLAYABLE)
    os.replace(tmp_path / "game" / "c.toml", shared / "c.toml")
    path.write_text(path.read_text().replace('cards "c.toml"', 'cards "../shared/c.toml"'))
    with pytest.raises(CardError):
        Engine.load(path)
    assert Engine.load(path, search=(shared,)).new_game(2, 0).result is not None


def test_a_marker_file_makes_the_project_root(tmp_path):
    (tmp_path / "lfdsl.toml").write_text("")
    (tmp_path / "rules").mkdir()
    path = write_rules(tmp_path / "rules", PLAYABLE)
    (tmp_path / "cards").mkdir()
    os.replace(tmp_path / "rules" / "c.toml", tmp_path / "cards" / "c.toml")
    path.write_text(path.read_text().replace('cards "c.toml"', 'cards "../cards/c.toml"'))
    assert Engine.load(path).new_game(2, 0).result is not None


@pytest.mark.parametrize("target", ["folder", "fifo", "large"])
def test_only_regular_files_of_bounded_size_are_read(tmp_path, target):
    where = tmp_path / "x.lf"
    if target == "folder":
        where.mkdir()
        expected = "a folder"
    elif target == "fifo":
        os.mkfifo(where)
        expected = "not a regular file"
    else:
        where.write_text("# padding\n" * (files.RULES_MAX_BYTES // 10 + 1))
        expected = "file too large"
    (tmp_path / "r.lf").write_text('extends "x.lf"\n')
    with pytest.raises(CheckError) as info:
        Engine.load(tmp_path / "r.lf")
    assert expected in info.value.render()
    with pytest.raises(ParseError, match=expected):
        Engine.load(where)


@pytest.mark.parametrize("option, value", [("step_budget", 1_000_001), ("round_limit", 10**24),
                                           ("decision_limit", 10**7)])
def test_self_set_limits_have_ceilings(tmp_path, option, value):
    path = write_rules(tmp_path, PLAYABLE)
    path.write_text(path.read_text().replace('cards "c.toml"', f'cards "c.toml" {option} {value}'))
    with pytest.raises(ParseError) as info:
        Engine.load(path)
    d = info.value.diagnostics[0]
    assert d.line == 1 and "more than the engine allows" in d.message


def test_integers_are_bounded(tmp_path):
    path = write_rules(tmp_path, """
counter n = 0
round { phase x { let v = 2
    repeat 64 { let v = v * v }
    set n = v } }
victory for p after x { win if n > 0 rank by 0 }
""")
    with pytest.raises(GameError) as info:
        Engine.load(path).new_game(2, 0)
    assert "outside the engine's range" in info.value.diagnostic.message
    assert info.value.diagnostic.line == 6


def test_a_list_that_doubles_is_charged_to_the_step_budget(tmp_path):
    path = write_rules(tmp_path, """
counter n = 0
round { phase x { let l = [1]
    repeat 60 { let l = l + l }
    set n = count(l) } }
victory for p after x { win if n > 0 rank by 0 }
""")
    with pytest.raises(GameError, match="step budget"):
        Engine.load(path).new_game(2, 0)


def test_a_tree_of_calls_is_charged_to_the_step_budget(tmp_path):
    defs = "def d1(x) = x + x\n" + "".join(f"def d{i}(x) = d{i - 1}(d{i - 1}(x))\n" for i in range(2, 31))
    path = write_rules(tmp_path, defs + """
counter n = 0
round { phase x { set n = d30(0) } }
victory for p after x { win if n >= 0 rank by 0 }
""")
    with pytest.raises(GameError, match="step budget"):
        Engine.load(path).new_game(2, 0)


def test_a_game_has_a_total_step_ceiling(tmp_path, monkeypatch):
    import interpreter.core.runtime as engine_module
    monkeypatch.setattr(engine_module, "MAX_GAME_STEPS", 500)
    path = write_rules(tmp_path, """
counter n = 0
round { phase x each p { choose { option go { repeat 50 { set n += 1 } } } } }
victory for p after x { win if n < 0 rank by 0 }
""")
    engine = Engine.load(path)
    st = engine.new_game(2, 0)
    with pytest.raises(GameError, match="steps in all"):
        for _ in range(100):
            engine.apply(st, "go")
    assert 500 < st.total_steps < 700


def test_an_engine_fault_is_an_internal_error_not_the_rulesets(tmp_path, monkeypatch):
    from interpreter.engine import InternalError
    path = write_rules(tmp_path, PLAYABLE)
    engine = Engine.load(path)

    def broken(*args):
        raise KeyError("i1")
    import interpreter.core.runtime as runtime
    monkeypatch.setattr(runtime.Run, "set_counter", broken)
    with pytest.raises(InternalError) as info:
        engine.new_game(2, 0)
    d = info.value.diagnostic
    assert d.line == 5 and "internal error in the engine" in d.message
    assert "fault of lfdsl, not of the ruleset" in d.hint and "none" not in d.hint


def test_reading_from_none_is_the_rulesets_error(tmp_path):
    path = write_rules(tmp_path, """
zone pile: pile of Token
counter n = 0
round { phase x { set n = top(pile).value } }
victory for p after x { win if n > 0 rank by 0 }
""")
    with pytest.raises(GameError) as info:
        Engine.load(path).new_game(2, 0)
    d = info.value.diagnostic
    assert type(info.value) is GameError and d.line == 6 and "a value that is none" in d.message


def test_an_index_outside_a_list_is_the_rulesets_error(tmp_path):
    path = write_rules(tmp_path, """
counter n = 0
round { phase x { set n = [1, 2, 3][-1] } }
victory for p after x { win if n > 0 rank by 0 }
""")
    with pytest.raises(GameError, match=r"index -1 is outside the list \(it has 3 elements"):
        Engine.load(path).new_game(2, 0)


def test_the_cli_reports_an_unexpected_fault_without_a_traceback(tmp_path, capsys, monkeypatch):
    from interpreter.tools import cli
    monkeypatch.setattr(cli, "cmd_check", lambda args: {}["boom"])
    assert cli.main(["check", "rulesets/base.lf"]) == cli.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["٣", "３", "+3", "1_000", " 3"])
def test_player_counts_and_seeds_take_ascii_digits_only(capsys, value):
    from interpreter.tools import cli
    for option in ("--players", "--seed"):
        assert cli.main(["run", "rulesets/duel.lf", option, value]) == cli.EXIT_STATIC
        assert capsys.readouterr().err.startswith(f"{option}:1:1: {option} takes a whole number, not `{value}`")


def test_a_set_without_a_value_is_positioned(capsys):
    from interpreter.tools import cli
    assert cli.main(["check", "rulesets/solo.lf", "--set", "difficulty=2", "--set", "goal"]) == cli.EXIT_STATIC
    err = capsys.readouterr().err
    assert err.startswith("--set:2:5: `--set` takes name=value\n    goal\n        ^")


def test_a_scenario_cannot_put_a_card_where_its_kind_does_not_go(tmp_path):
    from interpreter.tools.scenario import ScenarioError, run_scenario
    text = (ROOT / "tests" / "scenarios" / "solo" / "lose_eighth_fire.toml").read_text()
    bad = tmp_path / "s.toml"
    bad.write_text(text.replace('"P1.line" = ["Dolphin",', '"P1.line" = ["Fire 2",'))
    engine = Engine.load(ROOT / "rulesets" / "solo.lf")
    with pytest.raises(ScenarioError) as info:
        run_scenario(engine, bad)
    d = info.value.diagnostics[0]
    assert d.line == 13 and "`Fire 2` is a" in d.message and "`P1.line` holds" in d.message


def test_a_literal_of_thousands_of_digits_is_refused_without_converting_it(tmp_path):
    path = write_rules(tmp_path, "counter n = " + "9" * 5000 + "\n" + PLAYABLE.replace("counter n = 0\n", ""))
    with pytest.raises(ParseError) as info:
        Engine.load(path)
    d = info.value.diagnostics[0]
    assert (d.line, d.col) == (3, 13) and "the number of 5,000 digits is more than the engine allows" in d.message


def test_a_card_number_too_long_to_convert_is_positioned(tmp_path):
    path = write_rules(tmp_path, PLAYABLE, cards='[[Token]]\nname = "Red"\nvalue = ' + "7" * 5000 + "\n")
    with pytest.raises(CardError) as info:
        Engine.load(path)
    d = info.value.diagnostics[0]
    assert (d.line, d.col) == (3, 9) and "outside the engine's range" in d.message
    shown = info.value.render().splitlines()
    assert max(len(line) for line in shown) < 260 and shown[2].index("^") == shown[1].index("7")


def test_a_long_chain_of_definitions_is_a_check_error(tmp_path):
    defs = "def d1(x) = x + 1\n" + "".join(f"def d{i}(x) = d{i - 1}(x) + 1\n" for i in range(2, 301))
    path = write_rules(tmp_path, defs + PLAYABLE.replace("set n += 1", "set n += d300(1)"))
    with pytest.raises(CheckError) as info:
        Engine.load(path)
    assert "definitions call one another more than 32 deep" in info.value.diagnostics[0].message


def test_cards_and_counter_keys_are_capped(tmp_path, monkeypatch):
    from interpreter.core import boards, zones
    monkeypatch.setattr(zones, "MAX_CARDS", 50)
    monkeypatch.setattr(boards, "MAX_KEYS", 20)
    path = write_rules(tmp_path, """
zone pile: pile of Token
counter n = 0
counter seen[] = 0
round { phase x { create defs(Token) times 60 into pile } }
victory for p after x { win if n > 0 rank by 0 }
""")
    with pytest.raises(GameError, match="more than 50 cards in one game"):
        Engine.load(path).new_game(2, 0)
    path.write_text(path.read_text().replace("create defs(Token) times 60 into pile",
                                             "for i in 1..30 { set seen[i] += 1 }"))
    with pytest.raises(GameError, match="counter `seen` has 20 keys"):
        Engine.load(path).new_game(2, 0)
