"""Whole games: golden traces, determinism across processes, and many random games."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from interpreter.tools.agents import make_agents, play
from interpreter.tools.trace import ListSink, render

from .conftest import ROOT

# Seeds chosen among the first 60 for short random games, so the golden files stay reviewable.
GOLDEN = [(2, 11), (3, 43), (4, 9)]
DUEL_GOLDEN = [1, 7]


@pytest.fixture(scope="module")
def duel_engine():
    from interpreter.engine import Engine
    return Engine.load(ROOT / "rulesets" / "duel.lf")


def readable_trace(engine, players, seed) -> str:
    sink = ListSink()
    st = engine.new_game(players, seed, sink=sink)
    play(engine, st, make_agents("random", players, seed), sink)
    lines = []
    for ev in sink.events:
        lines.extend(render(ev, full_state=True))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("players,seed", GOLDEN, ids=[f"{p}p-seed{s}" for p, s in GOLDEN])
def test_golden_trace(base_engine, text_snapshot, players, seed):
    text = readable_trace(base_engine, players, seed)
    assert text.splitlines()[-1].startswith("  P")  # ends with the victory counts
    assert text == text_snapshot


@pytest.mark.parametrize("seed", DUEL_GOLDEN, ids=[f"duel-seed{s}" for s in DUEL_GOLDEN])
def test_duel_golden_trace(duel_engine, text_snapshot, seed):
    text = readable_trace(duel_engine, 2, seed)
    assert "winner: P" in text and ("(Summer)" in text or "(Winter)" in text)
    assert text == text_snapshot


def test_duel_random_games_finish_with_a_winner(duel_engine):
    # A few hundred in CI; benchmarks/playouts.py --games 1000 runs the full thousand.
    reasons = set()
    for seed in range(200):
        st = duel_engine.new_game(2, seed)
        play(duel_engine, st, make_agents("random", 2, seed))
        assert st.result is not None and len(st.result["winners"]) == 1, seed
        reasons.add(st.result["reason"])
    assert len(reasons) >= 2


def test_duel_same_seed_same_trace(duel_engine):
    assert readable_trace(duel_engine, 2, 3) == readable_trace(duel_engine, 2, 3)


def test_trace_schema(base_engine):
    sink = ListSink()
    st = base_engine.new_game(3, 5, sink=sink)
    play(base_engine, st, make_agents("random", 3, 5), sink)
    events = sink.events
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    for e in events:
        assert list(e) == ["seq", "round", "phase", "player", "event", "data"]
    states = [e for e in events if e["event"] == "state"]
    assert [s["round"] for s in states] == list(range(1, st.round + 1))
    first = states[0]["data"]
    assert set(first) >= {"zones", "counters", "markers", "tracks", "grids"}
    assert len(first["zones"]["P1.deck"]) == 14
    assert first["markers"]["sacred_tree"] in ("P1", "P2", "P3")
    last = events[-1]
    assert last["event"] == "game_end"
    assert last["data"]["winners"] and set(last["data"]["counts"]) == {"P1", "P2", "P3"}
    json.dumps(events)  # every event is JSON data


def _trace_in_subprocess(folder, hashseed: str, ruleset: str, players: str) -> bytes:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    out = folder / f"trace-{hashseed}-{ruleset}.jsonl"
    subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "run", str(ROOT / "rulesets" / ruleset),
                    "--players", players, "--seed", "11", "--quiet", "--trace", str(out)],
                   check=True, env=env, cwd=ROOT, capture_output=True)
    return out.read_bytes()


@pytest.mark.parametrize("ruleset,players", [("base.lf", "3"), ("duel.lf", "2")])
def test_same_seed_same_trace_in_two_processes(tmp_path, ruleset, players):
    a = _trace_in_subprocess(tmp_path, "1", ruleset, players)
    b = _trace_in_subprocess(tmp_path, "4242", ruleset, players)
    assert a == b
    assert a.count(b"\n") > 100


def test_different_seeds_differ(base_engine):
    a = readable_trace(base_engine, 2, 1)
    b = readable_trace(base_engine, 2, 2)
    assert a != b


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_finish_with_a_winner(base_engine, players):
    """Every game ends in the round in which some player first has 12 (`goal`) of a category: the
    players who reached the goal are exactly those with 12 or more, and the winners are among them."""
    # 40 games a count in the suite; benchmarks/playouts.py --games 1000 runs the full thousand.
    goal = base_engine.params["goal"]
    assert goal == 12
    for seed in range(40):
        st = base_engine.new_game(players, seed)
        play(base_engine, st, make_agents("random", players, seed))
        result = st.result
        reached = [seat for seat, counts in result["counts"].items() if max(counts.values()) >= goal]
        assert result["reached"] == reached and reached, (seed, result)
        assert result["winners"] and set(result["winners"]) <= set(reached), (seed, result)
        assert len(result["counts"]) == players


def _first_agent_game(engine, seed):
    sink = ListSink()
    st = engine.new_game(2, seed, sink=sink)
    play(engine, st, make_agents("first", 2, seed), sink)
    return st, sink.events


def test_first_agent_always_takes_the_first_option(base_engine):
    st, events = _first_agent_game(base_engine, 3)
    choices = [e["data"] for e in events if e["event"] == "choice"]
    assert len(choices) > 20
    assert all(c["choice"] == c["options"][0] for c in choices)
    assert any(len(c["options"]) > 1 for c in choices)  # some decisions had an option to pass over
    assert st.result["winners"]


def test_first_agent_is_deterministic(base_engine):
    """The same seed gives the same game, event for event; the agent's pick depends neither on the
    seed it is made with nor on its seat."""
    st, events = _first_agent_game(base_engine, 3)
    again, events_again = _first_agent_game(base_engine, 3)
    assert events_again == events and again.to_json() == st.to_json()
    agents = make_agents("first", 2, 3) + make_agents("first", 2, 99)
    from interpreter.engine import Option
    options = [Option(f"value:{i}", f"option {i}", i, i) for i in range(5)]
    assert [a.choose(options, st) for a in agents] == [options[0]] * 4


def test_state_is_json_and_clone_replays_identically(base_engine):
    st = base_engine.new_game(2, 8)
    agents = make_agents("random", 2, 8)
    for _ in range(50):
        base_engine.apply(st, agents[st.pending["player"]].choose(base_engine.options(st), st))
    json.dumps(st.to_json())
    twin = st.clone()
    played = 0
    for _ in range(200):
        if base_engine.is_over(st):
            break
        opts = base_engine.legal(st)
        assert base_engine.legal(twin) == opts
        base_engine.apply(st, len(opts) - 1)
        base_engine.apply(twin, len(opts) - 1)
        played += 1
    assert played > 100  # the twins played on, so equal states say something
    assert st.to_json() == twin.to_json()
