"""Rule scenarios of Living Forest Duel, and the game results that expectations cannot express."""
from pathlib import Path

import pytest

from interpreter.engine import Engine
from interpreter.tools.scenario import Runner, run_scenario

from .conftest import final_state, scenario_passes

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "tests" / "scenarios" / "duel"


@pytest.fixture(scope="module")
def engine():
    return Engine.load(ROOT / "rulesets" / "duel.lf")


def test_the_scenario_folder_is_not_empty():
    assert len(sorted(SCENARIOS.glob("*.toml"))) >= 10


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_scenario(engine, path):
    scenario_passes(engine, path)


# The four victory conditions: scenario -> (winner, reason given by duel.lf).
VICTORIES = {
    "recruitment_victory": ("P1", "only animals of their season are left in the recruitment line"),
    "refilled_line_victory": ("P1", "only animals of their season are left in the recruitment line"),
    "fire_victory_8": ("P2", "collected 8 fire tokens"),
    "onibi_victory": ("P1", "Onibi reached the opponent, who already had the Onibi card"),
    "forest_victory_3x3": ("P1", "planted a 3x3 forest"),
}


@pytest.mark.parametrize("name", sorted(VICTORIES))
def test_victory(engine, name):
    """Each victory condition ends the game at once with one winner and its reason."""
    winner, reason = VICTORIES[name]
    runner = scenario_passes(engine, SCENARIOS / f"{name}.toml")
    st = final_state(runner)
    assert engine.is_over(st)
    assert st.pending is None
    result = st.result
    assert result["winners"] == [winner]
    assert result["reached"] == [winner]
    assert result["reason"] == reason
    assert result["seats"] == {"P1": "Summer", "P2": "Winter"}
    ends = [ev for ev in runner.sink.events if ev["event"] == "game_end"]
    assert len(ends) == 1 and ends[0]["data"] == result


@pytest.mark.parametrize("path", sorted(p for p in SCENARIOS.glob("*.toml") if p.stem not in VICTORIES),
                         ids=lambda p: p.stem)
def test_no_other_scenario_ends_the_game(engine, path):
    """Only the victory scenarios end the game."""
    _, runner = run_scenario(engine, path)
    assert not [ev for ev in runner.sink.events if ev["event"] == "game_end"]
    st = final_state(runner)
    assert st.result is None and not engine.is_over(st) and st.pending is not None


def arranged(engine, name):
    """The arranged starting state of a scenario, before its phase starts, with its runner."""
    runner = Runner(engine, SCENARIOS / name)
    data = runner.data
    st = engine.new_game(data.get("players"), data.get("seed", 0), sink=runner.sink, setup_only=True)
    runner.arrange(st, data["start"])
    return runner, st


def test_end_of_turn_example_totals(engine):
    """The end-of-turn example: fire value 8 on 3 cards; Winter has 2 + 3 + 2 = 7 water, Summer 8."""
    runner, st = arranged(engine, "water_7_against_fire_8.toml")
    on_fire = "0..6 where fire_on[it] == 1 or it == position(clearing, onibi)"
    assert runner.evaluate(f"count({on_fire})", st) == 3
    assert runner.evaluate(f"sum({on_fire}, space_at(clearing, it).value)", st) == 8
    assert runner.evaluate("shared(water)", st) == 2
    assert runner.evaluate("count(player(2).forest where it.element == water)", st) == 3
    assert runner.evaluate("sum(player(2).personal, it.water)", st) == 2
    assert runner.evaluate("value(player(2), water)", st) == 7
    assert runner.evaluate("value(player(1), water)", st) == 8


def test_onibi_example_start(engine):
    """The Onibi example: 3 of Summer's 4 wind from Winter2 (index 4) wrap onto Summer's end card."""
    runner, st = arranged(engine, "onibi_wraps.toml")
    assert runner.evaluate("value(player(1), wind)", st) == 4
    assert runner.evaluate("position(clearing, onibi)", st) == 4
    assert runner.evaluate("space_at(clearing, 0).bonus == take_sanki", st) is True
    assert runner.evaluate("holder(onibi_card) == none", st) is True
