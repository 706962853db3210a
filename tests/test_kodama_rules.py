"""Rule scenarios of the Kodama expansion and its solo mode, and the game results that
expectations cannot express."""
import re
from pathlib import Path

import pytest

from interpreter.engine import Engine
from interpreter.tools.scenario import run_scenario

from .conftest import final_state, scenario_passes

ROOT = Path(__file__).resolve().parents[1]
KODAMA = ROOT / "tests" / "scenarios" / "kodama"
SOLO = ROOT / "tests" / "scenarios" / "solo"


@pytest.fixture(scope="module")
def kodama_engine():
    return Engine.load(ROOT / "rulesets" / "kodama.lf")


@pytest.fixture(scope="module")
def solo_engine():
    return Engine.load(ROOT / "rulesets" / "solo.lf")


passed = scenario_passes


def test_scenario_folders_are_not_empty():
    assert sorted(KODAMA.glob("*.toml"))
    assert sorted(SOLO.glob("*.toml"))


@pytest.mark.parametrize("path", sorted(KODAMA.glob("*.toml")), ids=lambda p: p.stem)
def test_kodama_scenario(kodama_engine, path):
    passed(kodama_engine, path)


@pytest.mark.parametrize("path", sorted(SOLO.glob("*.toml")), ids=lambda p: p.stem)
def test_solo_scenario(solo_engine, path):
    passed(solo_engine, path)


def game_end(runner):
    ends = [ev for ev in runner.sink.events if ev["event"] == "game_end"]
    assert len(ends) == 1
    return ends[0]["data"]


# ---- Kodama: the game ends only in the scenario where 13 trees still win -------------------------
KODAMA_ENDS = {"kodama_tree_goal_13_wins"}


def test_thirteen_trees_win_while_the_tree_pile_lasts(kodama_engine):
    """Fin du jeu: 13 different trees win when the Kodama Tree pile is not empty."""
    runner = passed(kodama_engine, KODAMA / "kodama_tree_goal_13_wins.toml")
    st = final_state(runner)
    assert kodama_engine.is_over(st)
    assert st.pending is None
    result = st.result
    assert result["winners"] == ["P1"]
    assert result["reached"] == ["P1"]
    assert result["loser"] is None
    assert result["counts"]["P1"]["trees"] == 13
    assert game_end(runner) == result


def test_thirteen_trees_no_longer_win_once_the_tree_pile_is_empty(kodama_engine):
    """Appeler un Kodama: the last card of the Tree pile raises the tree threshold to 15."""
    runner = passed(kodama_engine, KODAMA / "kodama_tree_pile_empty_goal_15.toml")
    st = final_state(runner)
    assert st.result is None
    assert not kodama_engine.is_over(st)
    assert st.pending is not None


@pytest.mark.parametrize("path", sorted(p for p in KODAMA.glob("*.toml") if p.stem not in KODAMA_ENDS),
                         ids=lambda p: p.stem)
def test_no_other_kodama_scenario_ends_the_game(kodama_engine, path):
    _, runner = run_scenario(kodama_engine, path)
    assert not [ev for ev in runner.sink.events if ev["event"] == "game_end"]
    st = final_state(runner)
    assert st.result is None and not kodama_engine.is_over(st) and st.pending is not None


# ---- Solo: the three ways to lose, and the win ---------------------------------------------------
SOLO_LOSSES = {
    "lose_eighth_fire": "Onibi had to put an 8th fire on the Circle of Spirits",
    "lose_no_varan_left": "a fire varan was due and none was left",
    "lose_no_tile_left": "Onibi had to take a victory tile from an empty column",
}
SOLO_WINS = {"win_thirteen_flowers"}


@pytest.mark.parametrize("name", sorted(SOLO_LOSSES))
def test_solo_loss(solo_engine, name):
    """Mode Solo, But du jeu: each way to lose ends the game at once, with no winner."""
    runner = passed(solo_engine, SOLO / f"{name}.toml")
    st = final_state(runner)
    assert solo_engine.is_over(st)
    assert st.pending is None
    result = st.result
    assert result["winners"] == []
    assert result["loser"] == "P1"
    assert result["reason"] == SOLO_LOSSES[name]
    assert game_end(runner) == result


def test_solo_win_thirteen_flowers(solo_engine):
    """Mode Solo, But du jeu: 13 flowers in the help line (an element tile included) win."""
    runner = passed(solo_engine, SOLO / "win_thirteen_flowers.toml")
    st = final_state(runner)
    assert solo_engine.is_over(st)
    assert st.pending is None
    result = st.result
    assert result["winners"] == ["P1"]
    assert result["loser"] is None
    assert result["counts"]["P1"]["flowers"] == 13
    assert game_end(runner) == result


@pytest.mark.parametrize("path", sorted(p for p in SOLO.glob("*.toml")
                                        if p.stem not in SOLO_LOSSES and p.stem not in SOLO_WINS),
                         ids=lambda p: p.stem)
def test_no_other_solo_scenario_ends_the_game(solo_engine, path):
    _, runner = run_scenario(solo_engine, path)
    assert not [ev for ev in runner.sink.events if ev["event"] == "game_end"]
    st = final_state(runner)
    assert st.result is None and not solo_engine.is_over(st) and st.pending is not None


# ---- Solo, the other reading of S-8 (tests/rulesets/solo/varans_left.lf, rulings S-13) ---------
VARANS_LEFT = ROOT / "tests" / "scenarios" / "solo_varans_left"


def test_the_other_reading_takes_the_varans_left_and_loses_only_on_a_pile_already_empty(solo_engine):
    layer = Engine.load(ROOT / "tests" / "rulesets" / "solo" / "varans_left.lf")
    # Two varans due, one left: the layer takes it and plays on; solo.lf loses there.
    st = final_state(passed(layer, VARANS_LEFT / "take_what_is_left.toml"))
    assert not layer.is_over(st)
    outcomes, _ = run_scenario(solo_engine, VARANS_LEFT / "take_what_is_left.toml")
    assert [o.ok for o in outcomes if "onibi" in o.text] == [False]
    # A varan due from a pile already empty: lost under either reading.
    st = final_state(passed(layer, VARANS_LEFT / "lose_pile_already_empty.toml"))
    assert st.result["winners"] == [] and st.result["loser"] == "P1"
    assert st.result["reason"] == "a fire varan was due and the pile was already empty"


def test_a_result_that_differs_is_reported_with_what_the_game_gave(solo_engine, tmp_path):
    # docs/scenarios.md, "The result": each key of the result fails with the value the game gave,
    # and a step asking for a decision once the game is over says so in plain words.
    text = (SOLO / "win_thirteen_flowers.toml").read_text()
    text = text[:text.rindex("over = true")] + (
        'over = false\nwinners = []\nreason = "lost"\nranking = []\nscores = { P1 = { flowers = 12 } }\n'
        '\n[[step]]\nplayer = 1\nprompt = "action"\n')
    path = tmp_path / "wrong.toml"
    path.write_text(text)
    outcomes, _ = run_scenario(solo_engine, path)
    failed = [re.sub(r"^step [0-9]+( \(.*?\))?: ", "", o.text) for o in outcomes if not o.ok]
    assert failed == [
        "the game is not over (it ended: flowers reached the solo goal)",
        "winners are nobody (got P1; reason: flowers reached the solo goal)",
        'the game ended because "lost" (got "flowers reached the solo goal")',
        "ranking is empty (got P1 (13))",
        "P1 scores flowers = 12 (got 13)",
        "decision is `action` (got no decision: the game is over)",
        "P1 decides (got no decision: the game is over)",
    ]
