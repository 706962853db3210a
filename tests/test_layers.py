"""Layering: a ruleset that extends another; explain; the printer behind it."""
from __future__ import annotations

import pytest

from interpreter.tools.agents import make_agents, play
from interpreter.tools.cli import main
from interpreter.engine import Engine
from interpreter.tools.trace import ListSink, render
from rulesdsl import unparse
from rulesdsl.errors import CheckError, LanguageError
from rulesdsl.layers import load_ruleset

from .conftest import ROOT

LAYERS = ROOT / "tests" / "rulesets" / "layers"


def trace(engine, players, seed):
    sink = ListSink()
    st = engine.new_game(players, seed, sink=sink)
    play(engine, st, make_agents("random", players, seed), sink)
    return [line for ev in sink.events for line in render(ev)]


def test_a_child_states_only_its_changes():
    program = load_ruleset(LAYERS / "child.lf")
    names = [getattr(i, "name", type(i).__name__) for i in program.items]
    assert names.count("goal") == 1 and "double" in names
    kind = next(i for i in program.items if getattr(i, "name", None) == "Token")
    assert [f.name for f in kind.fields] == ["value", "bonus"]
    rnd = next(i for i in program.items if type(i).__name__ == "RoundDecl")
    assert [ph.name for ph in rnd.phases] == ["play", "tidy"]
    layer = program.layers[-1]
    assert [(c.action, c.what, c.name) for c in layer.changes] == [
        ("replace", "param", "goal"), ("amend", "kind", "Token"), ("amend", "def", "total"),
        ("add", "action", "double"),
        ("amend", "phase", "play"), ("amend", "phase", "play"), ("amend", "setup", None),
        ("amend", "round", None)]


def test_the_child_plays_with_its_changes():
    engine = Engine.load(LAYERS / "child.lf")
    assert engine.params["goal"] == 4
    st = engine.new_game(2, 1)
    assert engine.legal(st) == ["gain", "double"]
    lines = trace(engine, 2, 1)
    assert any("acted P1" in line for line in lines)
    assert any(line.startswith("-- phase tidy") for line in lines)
    assert any("shuffle bag" in line for line in lines)


def test_amend_def_adds_to_the_lower_value(tmp_path):
    from interpreter.tools.scenario import Runner
    engine = Engine.load(LAYERS / "child.lf")
    st = engine.new_game(2, 1)
    st.counters["points"] = [3, 0]
    runner = Runner.__new__(Runner)
    runner.engine, runner.path = engine, tmp_path / "x"
    assert runner.evaluate("total(player(1))", st) == 31
    (tmp_path / "parent.lf").write_text((LAYERS / "parent.lf").read_text())
    (tmp_path / "c.lf").write_text('extends "parent.lf"\namend def total(q) = super\n')
    with pytest.raises(CheckError) as info:
        load_ruleset(tmp_path / "c.lf")
    assert "must keep the parameters (p)" in info.value.diagnostics[0].message


def test_layer_errors_are_positioned_in_the_layer_that_made_them():
    with pytest.raises(CheckError) as info:
        load_ruleset(LAYERS / "bad_child.lf")
    got = [(d.line, d.message) for d in info.value.diagnostics]
    assert got == [
        (2, "`replace action gian`: no lower layer declares it"),
        (3, "`amend phase ply`: no lower layer has this phase"),
        (4, "phase `play` has no step `actt`"),
        (5, "zone `bag` is already declared in tests/rulesets/layers/parent.lf:9".replace(
            "tests/rulesets/layers/parent.lf", str(LAYERS / "parent.lf"))),
        (6, "counter `points` is already declared in tests/rulesets/layers/parent.lf:10".replace(
            "tests/rulesets/layers/parent.lf", str(LAYERS / "parent.lf"))),
    ]
    hints = [d.hint for d in info.value.diagnostics]
    assert hints[:3] == ["did you mean `gain`?", "did you mean `play`?", "did you mean `act`?"]


def test_a_layers_declaration_that_does_not_fit_a_lower_layers_use_is_reported_at_both(tmp_path):
    (tmp_path / "parent.lf").write_text((LAYERS / "parent.lf").read_text())
    (tmp_path / "c.lf").write_text('extends "parent.lf"\n\nreplace param goal = "ten"\n')
    with pytest.raises(LanguageError) as info:
        Engine.load(tmp_path / "c.lf")
    got = sorted((d.path.rsplit("/", 1)[-1], d.line, d.message) for d in info.value.diagnostics)
    assert got == [("c.lf", 3, "`goal` as declared here does not fit where " + str(tmp_path / "parent.lf")
                    + " uses it (line 29): `>=` compares numbers, got text"),
                   ("parent.lf", 29, "`>=` compares numbers, got text")]
    # A layer's own use of a name from below is its own mistake, reported at the use only.
    (tmp_path / "d.lf").write_text('extends "parent.lf"\n\ncounter extra = goal and true\n')
    with pytest.raises(LanguageError) as info:
        Engine.load(tmp_path / "d.lf")
    assert {d.path.rsplit("/", 1)[-1] for d in info.value.diagnostics} == {"d.lf"}


def test_extends_cycle_and_missing_file(tmp_path):
    (tmp_path / "a.lf").write_text('extends "b.lf"\n')
    (tmp_path / "b.lf").write_text('extends "a.lf"\n')
    with pytest.raises(CheckError) as info:
        load_ruleset(tmp_path / "a.lf")
    assert "cycle" in info.value.diagnostics[0].message
    (tmp_path / "c.lf").write_text('extends "nowhere.lf"\n')
    with pytest.raises(CheckError) as info:
        load_ruleset(tmp_path / "c.lf")
    assert "no ruleset `nowhere.lf`" in info.value.diagnostics[0].message


def test_replace_without_extends(tmp_path):
    (tmp_path / "x.lf").write_text('game "X" { players 2..2 }\nreplace param goal = 3\n')
    with pytest.raises(CheckError) as info:
        load_ruleset(tmp_path / "x.lf")
    assert "extends none" in info.value.diagnostics[0].message


def test_ambiguous_step(tmp_path):
    (tmp_path / "p.lf").write_text('''game "P" { players 2..2 }
counter n = 0
round {
    phase play each p {
        if n > 0 { step inner { set n += 1 } } else { step inner { set n += 2 } }
    }
}
''')
    (tmp_path / "c.lf").write_text('extends "p.lf"\namend phase play { after inner { } }\n')
    with pytest.raises(CheckError) as info:
        load_ruleset(tmp_path / "c.lf")
    assert "2 steps named `inner`" in info.value.diagnostics[0].message


def test_explain_lists_changes_and_prints_the_effective_ruleset(capsys):
    assert main(["explain", str(LAYERS / "child.lf")]) == 0
    out = capsys.readouterr().out
    assert "replace param goal" in out and "amend phase play: replace step `act`" in out
    assert "param goal = 4" in out and "param goal = 5" not in out
    assert "actions 1 for p from gain, double" in out


@pytest.mark.parametrize("ruleset,players,seed", [("base.lf", 3, 4), ("duel.lf", 2, 4)])
def test_the_printed_ruleset_plays_the_same_game(tmp_path, ruleset, players, seed):
    program = load_ruleset(ROOT / "rulesets" / ruleset)
    text = unparse.program(program.items)
    copy = tmp_path / ruleset
    copy.write_text(text)
    cards = ROOT / "cards" / ruleset.replace(".lf", ".toml")
    original = Engine.load(ROOT / "rulesets" / ruleset)
    printed = Engine.load(copy, cards=cards)
    assert trace(printed, players, seed) == trace(original, players, seed)


def test_steps_inside_a_passing_body_can_be_amended(tmp_path):
    (tmp_path / "p.lf").write_text('''game "P" { players 2..2 }
counter n = 0
track ring: ring 6 { }
piece pawn on ring
setup { put pawn on ring at 1 for p in players { put p on ring at seat(p) + 2 } }
round {
    phase play {
        advance player(1) on ring by 2 passing x {
            step passed { set n += 1 }
        }
    }
}
victory for p after play { win if n > 0 rank by n }
''')
    (tmp_path / "c.lf").write_text('extends "p.lf"\namend phase play { replace passed { set n += 5 } }\n')
    program = load_ruleset(tmp_path / "c.lf")
    assert "set n += 5" in unparse.program(program.items)


def test_a_param_may_be_limited_to_allowed_values(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["run", "rulesets/solo.lf", "--set", "difficulty=12", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--set:1:12: `difficulty` may be 1..9, not `12`" in err and ":0:0" not in err
