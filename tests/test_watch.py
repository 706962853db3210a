"""A standing kept with what it read of the state (interpreter/core/watch.py, the bots' Evaluation):
used again exactly where the state holds the same values there, never where a value read changed;
the bots choose as they did without it."""
from __future__ import annotations

import random

import pytest

from interpreter.bots.evaluation import Evaluation
from interpreter.core.watch import Unwatchable, watched
from interpreter.engine import Engine
from interpreter.tools.agents import make_agents, play

from .conftest import ROOT

SHIPPED = [("base.lf", 3), ("kodama.lf", 2), ("duel.lf", 2), ("solo.lf", 1), ("dartmoor.lf", 3)]


def _engine(name: str) -> Engine:
    return Engine.load(ROOT / "rulesets" / name)


def test_a_standing_is_kept_for_the_players_whose_places_did_not_change():
    engine = _engine("base.lf")
    st = engine.new_game(3, 5)
    ev = Evaluation(engine)
    ev.anchor(st)
    assert ev.kept is not None and len(ev.kept) == 3
    moved = st.clone()
    moved.zones["P1.line"].append(moved.zones["P1.deck"].pop())  # seat 0's line changes
    assert [reads.holds(moved) for reads, _ in ev.kept] == [False, True, True]
    moved.counters["line_sun"][2] += 1  # a per-player counter read seat by seat
    assert [reads.holds(moved) for reads, _ in ev.kept] == [False, True, False]
    moved.zones["circle_fires"].append(moved.zones["fire_supply"].pop())  # a shared zone every seat reads
    assert not any(reads.holds(moved) for reads, _ in ev.kept)
    assert ev.standings(moved) == Evaluation(engine).standings(moved)


def test_a_change_to_a_card_definition_is_seen():
    # A card turned to another face reads other fields: the definitions are read whole.
    engine = _engine("base.lf")
    st = engine.new_game(2, 1)
    evaluate, reads = engine.watched_evaluator(st)
    Evaluation(engine).standing(st, 0, evaluate)
    other = st.clone()
    card = other.zones["P1.deck"][0]
    other.card_def[card] += 1  # another definition
    assert reads.holds(st.clone()) and not reads.holds(other)


@pytest.mark.parametrize("name,players", SHIPPED)
def test_kept_standings_equal_fresh_ones_along_a_game(name, players):
    # From each of a random game's positions, the next few: the standings used again are the ones a
    # fresh evaluation finds.
    engine = _engine(name)
    st = engine.new_game(players, 11)
    rng = random.Random(3)
    used = 0
    for _ in range(60):
        if st.result is not None:
            break
        ev = Evaluation(engine)
        ev.anchor(st)
        assert ev.kept is not None
        later = st.clone()
        for _ in range(4):
            if later.result is not None:
                break
            engine.apply(later, rng.randrange(engine.option_count(later)))
            assert ev.standings(later) == Evaluation(engine).standings(later)
            used += sum(reads.holds(later) for reads, _ in ev.kept)
        engine.apply(st, rng.randrange(engine.option_count(st)))
    assert used > 0  # some standings were used again


@pytest.mark.parametrize("name,players,agents", [("base.lf", 3, "greedy"), ("duel.lf", 2, "greedy"),
                                                 ("dartmoor.lf", 3, "greedy"), ("duel.lf", 2, "mcts:iterations=30")])
def test_the_bots_choose_as_without_kept_standings(name, players, agents, monkeypatch):
    engine = _engine(name)

    def game():
        events = []
        st = engine.new_game(players, 2)
        play(engine, st, make_agents(agents, players, 2, engine), events.append, max_decisions=120)
        return [e for e in events if e.get("event") == "choice"]

    kept = game()
    monkeypatch.setattr(Evaluation, "_keep", lambda self, st: None)
    assert kept == game() and len(kept) > 20


def test_a_read_that_cannot_be_watched_is_refused_and_the_bot_evaluates_without_keeping(monkeypatch):
    st = _engine("base.lf").new_game(2, 1)
    stand_in, _ = watched(st)
    for name in ("rng", "stack", "next_random"):
        with pytest.raises(Unwatchable):
            getattr(stand_in, name)
    with pytest.raises(Unwatchable):
        stand_in.round = 3
    engine = _engine("base.lf")
    fresh = Evaluation(engine).standings(st)

    def refuse(self, st):
        raise Unwatchable("rng")

    monkeypatch.setattr(Engine, "watched_evaluator", refuse)
    ev = Evaluation(engine)
    ev.anchor(st)
    assert ev.kept is None and not ev.watching
    assert ev.standings(st) == fresh
