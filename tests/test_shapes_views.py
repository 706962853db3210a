"""Views of the games of other shapes (issue 29) deal back to themselves: at every decision of a few
random games of the example games and the constructs' test rulesets, each player's view gives a
dealt game whose view is that same view (simultaneous choices, hidden amounts, hands held facing
the others, zones per value, hands of a game)."""
from __future__ import annotations

import random

import pytest

from interpreter.engine import Engine
from interpreter.tools.agents import make_agents

from .conftest import ROOT

GAMES = [("examples/sixnimmt/sixnimmt.lf", 4), ("examples/hanabi/hanabi.lf", 3), ("examples/forsale/forsale.lf", 4),
         ("tests/rulesets/draft.lf", 3), ("tests/rulesets/amounts.lf", 3), ("tests/rulesets/facing.lf", 3),
         ("tests/rulesets/keyed.lf", 2), ("tests/rulesets/deals.lf", 2), ("tests/rulesets/together.lf", 3)]


@pytest.mark.parametrize("path,players", GAMES, ids=[p.split("/")[-1] for p, _ in GAMES])
def test_every_view_deals_a_game_with_the_same_view(path, players):
    engine = Engine.load(ROOT / path)
    for seed in range(2):
        st = engine.new_game(players, seed)
        bots = make_agents("random", players, seed)
        rng = random.Random(seed)
        for _ in range(60):
            if engine.is_over(st):
                break
            for p in range(players):
                v = engine.view(st, p)
                assert engine.view(engine.determinize(v, rng), p) == v
            engine.apply(st, bots[engine.current_player(st)].choose(engine.options(st), None))
