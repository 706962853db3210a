"""Hidden amounts (issue 29, point 2): a counter may be `private` (seen by its owner) or `hidden`
(by nobody). Views, sights, players' traces and observations leave out what a player does not see;
a view's dealing guesses it; a choice offered by such an amount keeps its options from the others;
and the checker refuses a rule that would keep such an amount in a name, which views show."""
from __future__ import annotations

import random

import numpy as np
import pytest

from interpreter.engine import Engine
from interpreter.env import ObservationEncoder
from interpreter.tools.trace import render

from .conftest import ROOT, player_traces

RULESET = ROOT / "tests" / "rulesets" / "amounts.lf"


@pytest.fixture(scope="module")
def engine():
    return Engine.load(RULESET)


def with_coins(st, player, value):
    other = st.clone()
    other.counters["coins"][player] = value
    return other


def test_a_view_holds_ones_own_private_amount_and_no_other(engine):
    st = engine.new_game(3, 1)
    engine.apply(st, "2")  # P1 spends 2: 3 coins left, 2 in the pot
    for viewer in range(3):
        counters = engine.view(st, viewer).data["counters"]
        assert counters["coins"] == [3 if viewer == 0 else None, 5 if viewer == 1 else None, 5 if viewer == 2 else None]
        assert counters["pot"] is None and counters["spent"] == [2, 0, 0]
        assert counters["owed"][viewer] == ({"bank": 1} if viewer == 0 else {})
        assert [o for i, o in enumerate(counters["owed"]) if i != viewer] == [None, None]
    # Another amount for P1: only P1 can tell; another pot: nobody can.
    for viewer in range(3):
        assert (engine.view(st, viewer) == engine.view(with_coins(st, 0, 4), viewer)) == (viewer != 0)
        other = st.clone()
        other.counters["pot"] = 7
        assert engine.view(st, viewer) == engine.view(other, viewer)


def test_a_dealt_game_guesses_what_the_view_does_not_hold(engine):
    st = engine.new_game(3, 1)
    engine.apply(st, "2")
    dealt = engine.determinize(engine.view(st, 1), random.Random(0))
    # The others' coins are taken to be P2's own (5), the pot at its start (0): guesses, not the game.
    assert dealt.counters["coins"] == [5, 5, 5] and dealt.counters["pot"] == 0
    assert dealt.counters["owed"] == [{}, {}, {}]
    assert engine.current_player(dealt) == 1 and engine.legal(dealt) == engine.legal(st)
    engine.apply(dealt, "5")
    assert dealt.counters["coins"][1] == 0


def test_a_choice_offered_by_a_hidden_amount_keeps_its_options_from_the_others(engine):
    st = engine.new_game(2, 1)
    # P1's options (0..5) say how many coins P1 has: P2's view does not keep them.
    assert engine.view(st, 1).skeleton["pending"] == {"player": 0, "prompt": "coins to spend", "ask_again": True}
    assert engine.view(st, 1) == engine.view(with_coins(st, 0, 2), 1)
    dealt = engine.determinize(engine.view(st, 1), random.Random(1))
    assert engine.current_player(dealt) == 0
    (own, other), both = player_traces(engine, 0, 1)
    engine.apply(st, "3", both)
    mine = next(e for e in own if e["event"] == "choice")
    theirs = next(e for e in other if e["event"] == "choice")
    assert mine["data"]["options"] == ["0", "1", "2", "3", "4", "5"] and mine["data"]["choice"] == "3"
    # The amount spent is said aloud; what could have been spent is not.
    assert theirs["data"]["options"] == ["?"] and theirs["data"]["choice"] == "3"
    assert render(theirs) == ["  P1 coins to spend: 3  (the options are not seen)"]
    counters = {e["data"]["name"]: (e["data"]["was"], e["data"]["value"]) for e in other if e["event"] == "counter"}
    assert counters == {"coins": ("?", "?"), "spent": (0, 3), "pot": ("?", "?"), "owed[bank]": ("?", "?")}
    counters = {e["data"]["name"]: (e["data"]["was"], e["data"]["value"]) for e in own if e["event"] == "counter"}
    assert counters == {"coins": (5, 2), "spent": (0, 3), "pot": ("?", "?"), "owed[bank]": (0, 1)}


def test_a_players_state_event_and_sight_show_only_what_they_see(engine):
    st = engine.new_game(2, 1)
    events = []
    engine.apply(st, "1", events.append)
    engine.apply(st, "0", events.append)
    state = next(e for e in events if e["event"] == "state")
    seen = engine.player_sink(1, (got := []).append)
    seen(state)
    assert state["data"]["counters"]["coins"] == [4, 5] and state["data"]["counters"]["pot"] == 1
    assert got[0]["data"]["counters"]["coins"] == ["?", 5] and got[0]["data"]["counters"]["pot"] == "?"
    sight = engine.sight(st, 1)
    assert sight.counters["coins"] == [None, 5] and sight.counters["pot"] is None


def test_an_observation_reads_an_unseen_amount_as_nothing(engine):
    st = engine.new_game(2, 1)
    enc = ObservationEncoder(engine, 2)
    assert np.array_equal(enc.encode(engine.view(st, 1)), enc.encode(engine.view(with_coins(st, 0, 1), 1)))
    assert not np.array_equal(enc.encode(engine.view(st, 0)), enc.encode(engine.view(with_coins(st, 0, 1), 0)))


@pytest.mark.parametrize("agents", ["greedy", "mcts:iterations=20"])
def test_bots_play_with_amounts_they_do_not_see(engine, agents):
    from interpreter.tools.agents import make_agents, play
    st = engine.new_game(2, 5)
    play(engine, st, make_agents(agents, 2, 5, engine), max_decisions=6)
    assert engine.is_over(st) or st.decisions == 6  # played without an error


def test_a_dealt_game_guesses_amounts_that_can_ask_the_decision_the_view_shows():
    # For Sale, seed 0, after 15 random decisions: P3 (16 coins) is asked "bid" (1..16) while P2 has
    # no coin left. Guessing P3's coins as P2's own (0) would ask no bid; a larger guess does.
    from interpreter.tools.agents import make_agents as agents_for
    sale = Engine.load(ROOT / "examples" / "forsale" / "forsale.lf")
    st = sale.new_game(4, 0)
    bots = agents_for("random", 4, 0)
    for _ in range(15):
        sale.apply(st, bots[sale.current_player(st)].choose(sale.options(st), None))
    assert sale.decision(st)[:2] == (2, "bid") and st.counters["coins"][1] == 0
    v = sale.view(st, 1)
    for seed in range(5):
        dealt = sale.determinize(v, random.Random(seed))
        assert sale.view(dealt, 1) == v and sale.decision(dealt)[:2] == (2, "bid")


TOGETHER_COINS = """
game "Bids" { players 2..2 cards "tiny.toml" round_limit 3 }
kind Token { value: int }
counter coins = 5 per player private
counter pot = 0 hidden
setup { set player(1).coins = START }
round {
    phase bid {
        together p in players choose n in 0..p.coins "bid" { set p.coins -= n; set pot += n }
        set player(1).coins = 2
    }
}
victory for p after bid { score c = p.coins; win if false; rank by c }
"""


def _bids(tmp_path, start):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / f"b{start}.lf").write_text(TOGETHER_COINS.replace("START", str(start)))
    return Engine.load(tmp_path / f"b{start}.lf")


def test_another_players_trace_and_view_do_not_follow_a_private_amount(tmp_path):
    # P1 starts with 4 coins in one game and 2 in the other; P2 may not tell the games apart: not by
    # the number of options of P1's bid, not by a counter event that only a change would cause (P1's
    # coins are set to 2 each round), not by the work the rules did (the view holds no step count).
    traces, views = [], []
    for start in (4, 2):
        engine = _bids(tmp_path, start)
        seen = []
        st = engine.new_game(2, 1, sink=engine.player_sink(1, seen.append))
        views.append(engine.view(st, 1).to_json())
        for label in ("0", "0", "0", "0"):
            engine.apply(st, label, engine.player_sink(1, seen.append))
        views.append(engine.view(st, 1).to_json())
        traces.append([(e["event"], e["player"], e["data"]) for e in seen if e["event"] != "setup"])
    assert traces[0] == traces[1] and views[0] == views[2] and views[1] == views[3]
    part = next(d for ev, who, d in traces[0] if ev == "choice" and who == "P1")
    assert part["options"] == ["?"] and part["choice"] == "?"
