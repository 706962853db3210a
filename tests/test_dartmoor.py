"""Forest Shuffle: Dartmoor (rulesets/dartmoor.lf): its rule scenarios (every card's scoring rule and
the rulebook's examples), golden traces at 2 and 5 players, and random games at every count."""
from __future__ import annotations

import pytest

from interpreter.tools.agents import make_agents, play
from interpreter.engine import Engine

from .conftest import ROOT, scenario_passes
from .test_games import readable_trace

SCENARIOS = ROOT / "tests" / "scenarios" / "dartmoor"
# Seeds chosen among the first 30 for short random games, so the golden files stay reviewable.
GOLDEN = [(2, 23), (5, 4)]


@pytest.fixture(scope="module")
def engine():
    return Engine.load(ROOT / "rulesets" / "dartmoor.lf")


def test_the_scenario_folder_covers_every_scoring_card(engine):
    paths = sorted(SCENARIOS.glob("*.toml"))
    assert len(paths) >= 25
    text = "".join(p.read_text(encoding="utf-8") for p in paths)
    cards = engine.program.cards
    scoring = {d.name for d in cards.defs + cards.face_defs if d.fields.get("points") is not None}
    assert len(scoring) >= 55
    missing = sorted(n for n in scoring if f'"{n}"' not in text and f'\\"{n}\\"' not in text)
    assert not missing, missing


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_scenario(engine, path):
    scenario_passes(engine, path)


@pytest.mark.parametrize("players,seed", GOLDEN, ids=[f"{p}p-seed{s}" for p, s in GOLDEN])
def test_golden_trace(engine, text_snapshot, players, seed):
    text = readable_trace(engine, players, seed)
    assert "reason: the third winter card is drawn" in text
    assert text == text_snapshot


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_end_at_the_third_winter_card(engine, players):
    # A few per player count here; benchmarks/playouts.py plays the thousand (docs/rulings.md DM).
    for seed in range(6):
        st = engine.new_game(players, seed)
        play(engine, st, make_agents("random", players, seed))
        assert st.result is not None and st.result["winners"], (players, seed)
        assert st.result["reason"].startswith("the third winter card is drawn"), (players, seed)
        assert len(st.zones["winters"]) == 3
        # Every card is somewhere: 172 in the deck's making, 3 winter cards, 5 caves.
        assert len(st.card_def) == 180
