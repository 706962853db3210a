"""Rule scenarios of the base game, and the game results that expectations cannot express."""
from pathlib import Path

import pytest

from interpreter.engine import Engine
from interpreter.tools.scenario import Runner

from .conftest import final_state, scenario_passes

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "tests" / "scenarios" / "base"


@pytest.fixture(scope="module")
def engine():
    return Engine.load(ROOT / "rulesets" / "base.lf")


def test_the_scenario_folder_is_not_empty():
    assert len(sorted(SCENARIOS.glob("*.toml"))) >= 10


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_scenario(engine, path):
    scenario_passes(engine, path)


def test_tiebreak_23_20_16(engine):
    """French rulebook, Fin du jeu: three goals reached in one round; Alice wins 23 to 20 to 16."""
    runner = scenario_passes(engine, SCENARIOS / "tiebreak_23_20_16.toml")
    st = final_state(runner)
    assert engine.is_over(st)
    assert st.pending is None
    result = st.result
    # Alice = P1, Philippe = P2, Donna = P3
    assert result["winners"] == ["P1"]
    assert result["reached"] == ["P1", "P2", "P3"]
    assert result["rank"] == {"P1": 23, "P2": 16, "P3": 20}
    assert result["counts"] == {
        "P1": {"trees": 4, "fires": 6, "flowers": 13},
        "P2": {"trees": 12, "fires": 3, "flowers": 1},
        "P3": {"trees": 4, "fires": 13, "flowers": 3},
    }
    ends = [ev for ev in runner.sink.events if ev["event"] == "game_end"]
    assert len(ends) == 1 and ends[0]["data"] == result


def arranged(engine, name):
    """The arranged starting state of a scenario, before its phase starts, with its runner."""
    runner = Runner(engine, SCENARIOS / name)
    data = runner.data
    st = engine.new_game(data.get("players"), data.get("seed", 0), sink=runner.sink, setup_only=True)
    runner.arrange(st, data["start"])
    return runner, st


def test_onibi_example_water_totals(engine):
    """The Onibi example compares 8 and 9 water (help line + trees + bonus) with a power of 9."""
    runner, st = arranged(engine, "onibi_attack_three_varans.toml")
    assert runner.evaluate("sum(circle_fires, it.value)", st) == 9
    assert runner.evaluate("water(player(1))", st) == 8
    assert runner.evaluate("water(player(2))", st) == 9


def test_bonus_forfeited_is_traced(engine):
    """A rock bonus that cannot be performed is recorded as forfeited, not silently skipped."""
    runner = scenario_passes(engine, SCENARIOS / "bonus_forfeited.toml")
    forfeits = [ev["data"] for ev in runner.sink.events if ev["event"] == "forfeit"]
    assert forfeits == [{"action": "extinguish", "bonus": True}]
