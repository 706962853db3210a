"""One engine, many games: nothing that belongs to one game lives on the engine (issue 9's defects)."""
from __future__ import annotations

from interpreter.tools.agents import make_agents
from interpreter.engine import Engine
from interpreter.tools.trace import ListSink

from .conftest import ROOT
from .test_language import write_rules


def test_a_bound_that_depends_on_the_player_count_follows_each_game(tmp_path):
    path = write_rules(tmp_path, """
counter n = 0 max player_count
round { phase x each p { choose { option up { set n += 9 } } } }
victory for p after x { win if n < 0 rank by 0 }
""")
    path.write_text(path.read_text().replace("players 2..3", "players 2..4"))
    engine = Engine.load(path)
    two = engine.new_game(2, 0)
    engine.new_game(4, 0)  # a second game, of another size, on the same engine
    engine.apply(two, "up")
    assert two.counters["n"] == 2


def test_a_clone_played_without_a_sink_writes_nothing_into_the_games_trace():
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    sink = ListSink()
    st = engine.new_game(3, 5, sink=sink)
    engine.apply(st, 0, sink)
    before = len(sink.events)
    rollout = st.clone()
    agents = make_agents("random", 3, 9)
    for _ in range(20):
        engine.apply(rollout, agents[rollout.pending["player"]].choose(engine.options(rollout), rollout))
    assert len(sink.events) == before


def test_a_clone_is_independent_and_plays_the_same_game():
    engine = Engine.load(ROOT / "rulesets" / "kodama.lf")
    st = engine.new_game(3, 4)
    agents = make_agents("random", 3, 2)
    for _ in range(150):
        engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), st))
    assert not engine.is_over(st)  # the clones have a game left to play
    frozen = st.to_json()
    twin, other = st.clone(), st.clone()
    for clone in (twin, other):  # the same choices from the same state give the same game
        agents = make_agents("random", 3, 7)
        while not engine.is_over(clone):
            engine.apply(clone, agents[clone.pending["player"]].choose(engine.options(clone), clone))
    assert st.to_json() == frozen
    assert twin.to_json() == other.to_json() and twin.result is not None



WORKER = """
import io, os, pickle, sys
from interpreter.tools.agents import make_agents, play
from interpreter.tools.trace import JsonLinesSink
pickled = sys.stdin.buffer.read()
os.chdir(sys.argv[1])  # nothing of the project can be read from here
engine = pickle.loads(pickled)
out = io.StringIO()
sink = JsonLinesSink(out)
st = engine.new_game(1, 12, sink=sink)
play(engine, st, make_agents("random", 1, 12), sink)
sys.stdout.write(out.getvalue())
"""


def test_an_engine_pickles_and_a_worker_plays_the_same_game(tmp_path, monkeypatch):
    import io
    import os
    import pickle
    import subprocess
    import sys

    from interpreter.tools.agents import play
    from interpreter.tools.trace import JsonLinesSink
    monkeypatch.chdir(ROOT)
    engine = Engine.load("rulesets/solo.lf", params={"difficulty": "4"})
    out = io.StringIO()
    sink = JsonLinesSink(out)
    st = engine.new_game(1, 12, sink=sink)
    play(engine, st, make_agents("random", 1, 12), sink)
    worker = subprocess.run([sys.executable, "-c", WORKER, str(tmp_path)], input=pickle.dumps(engine),
                            capture_output=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert worker.returncode == 0, worker.stderr.decode()
    theirs = worker.stdout.decode()
    assert theirs == out.getvalue() and theirs.count("\n") > 50


# ---- one program, many games: interleaved, in rollouts, in threads ------------------------------
def _json_trace(engine, players, seed, agent_seed):
    """A game played alone, start to end: its JSON Lines trace."""
    import io

    from interpreter.tools.agents import play
    from interpreter.tools.trace import JsonLinesSink
    out = io.StringIO()
    sink = JsonLinesSink(out)
    st = engine.new_game(players, seed, sink=sink)
    play(engine, st, make_agents("random", players, agent_seed), sink)
    return out.getvalue()


def test_interleaved_games_of_two_sizes_and_100_rollouts_leave_every_trace_as_if_played_alone():
    import io

    from interpreter.tools.trace import JsonLinesSink
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    alone = {n: _json_trace(engine, n, 30 + n, 7) for n in (2, 4)}
    games = {}
    for n in (2, 4):
        out = io.StringIO()
        sink = JsonLinesSink(out)
        games[n] = (engine.new_game(n, 30 + n, sink=sink), sink, out, make_agents("random", n, 7))
    roller = make_agents("random", 4, 99)
    rollouts = 0
    while not all(engine.is_over(g[0]) for g in games.values()):
        for n, (st, sink, _, agents) in games.items():
            if engine.is_over(st):
                continue
            # Between two real decisions, roll clones of both games out without a sink.
            if rollouts < 100:
                rollout = engine.clone(st)
                for _ in range(15):
                    if engine.is_over(rollout):
                        break
                    engine.apply(rollout, roller[rollout.pending["player"]].choose(engine.options(rollout), rollout))
                rollouts += 1
            engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), st), sink)
    assert rollouts == 100
    for n in (2, 4):
        assert games[n][2].getvalue() == alone[n] and alone[n].count("\n") > 100


def test_games_in_threads_on_one_engine_give_the_traces_they_give_alone():
    from concurrent.futures import ThreadPoolExecutor
    import sys
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    seeds = list(range(8))
    alone = [_json_trace(engine, 2, s, s) for s in seeds]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    try:
        with ThreadPoolExecutor(4) as pool:
            threaded = list(pool.map(lambda s: _json_trace(engine, 2, s, s), seeds))
    finally:
        sys.setswitchinterval(old)
    assert threaded == alone


def test_a_compiled_program_cannot_be_changed():
    import pytest
    engine = Engine.load(ROOT / "rulesets" / "solo.lf")
    with pytest.raises(AttributeError, match="immutable"):
        engine.program.step_budget = 5
    with pytest.raises(AttributeError):
        engine.st = None  # the engine holds its program and nothing else


# ---- structured options -----------------------------------------------------------------------
def test_options_have_ids_labels_and_values_and_can_be_chosen_by_id():
    import pytest
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    st = engine.new_game(2, 3)
    seen_kinds = set()
    agents = make_agents("random", 2, 3)
    for _ in range(60):
        opts = engine.options(st)
        assert [o.label for o in opts] == engine.legal(st)
        assert len({o.id for o in opts}) == len(opts)           # unique within the decision
        assert [o.index for o in opts] == list(range(len(opts)))
        seen_kinds |= {o.id.split(":")[0] for o in opts}
        for o in opts:
            if o.id.startswith("card:"):                         # a card option's value is that card
                assert engine.names[st.card_def[o.value]] == o.label.split(" (")[0]
                assert o.id == f"card:{st.card_def[o.value]}@{st.loc[o.value]}"
        pick = agents[st.pending["player"]].choose(opts, st)
        twin = st.clone()
        engine.apply(st, pick.id)
        engine.apply(twin, pick.index)                           # by id or by index: the same game
        assert st.to_json() == twin.to_json()
    assert {"option", "card"} <= seen_kinds
    with pytest.raises(ValueError, match="not a legal option"):
        engine.apply(st, "card:no-such")
    stale = engine.options(st)[-1]._replace(label="something else")
    with pytest.raises(ValueError, match="not an option of the pending decision"):
        engine.apply(st, stale)


def test_option_ids_do_not_depend_on_how_hidden_cards_were_dealt():
    """The same offer in two deals has the same ids, though the card numbers differ."""
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    ids = {}
    for seed in (1, 2):
        st = engine.new_game(2, seed)
        ids[seed] = {o.label: o.id for o in engine.options(st)}
    common = set(ids[1]) & set(ids[2])
    assert common and all(ids[1][label] == ids[2][label] for label in common)


# ---- explicit chance --------------------------------------------------------------------------
def test_by_default_the_seed_decides_and_a_chance_source_can_replace_it():
    from interpreter.core.chance import ChanceEvent, Recorder, Sampler, Scripted
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    plain, seeded = engine.new_game(2, 8), engine.new_game(2, 8)
    assert plain.to_json() == seeded.to_json()
    rec = Recorder(Sampler(5))
    sampled = engine.new_game(2, 8, chance=rec)
    assert {ev.kind for ev, _ in rec.events} == {"pick", "shuffle"}
    assert sampled.rng == 8  # the state's own generator was not used
    assert sampled.zones != plain.zones
    again = Recorder(Sampler(5))
    assert engine.new_game(2, 8, chance=again).zones == sampled.zones  # a seeded sampler repeats
    # Scripting every shuffle as "no change" leaves each shuffled pile in the order it was made.
    ident = Scripted([out if ev.kind == "pick" else list(range(ev.size)) for ev, out in rec.events])
    unshuffled = engine.new_game(2, 8, chance=ident)
    shuffled = {ev.zone for ev, _ in rec.events if ev.kind == "shuffle"}
    assert all(unshuffled.zones[z] == sorted(unshuffled.zones[z]) for z in shuffled)
    assert any(plain.zones[z] != sorted(plain.zones[z]) for z in shuffled)
    pick = ChanceEvent("pick", 4)
    assert pick.outcomes() == [(i, 0.25) for i in range(4)] and pick.outcome_count() == 4
    assert ChanceEvent("shuffle", 5).outcome_count() == 120


def test_a_pick_can_be_enumerated_outcome_by_outcome(tmp_path):
    import pytest

    from interpreter.core.chance import Recorder, Sampler, Scripted
    path = write_rules(tmp_path, """
counter got = 0
round { phase x each p { choose { option go { set got = random([10, 20, 30]) } } } }
victory for p after x { win if got > 0 rank by got }
""")
    engine = Engine.load(path)
    st = engine.new_game(2, 0)
    rec = Recorder(Sampler(1))
    engine.apply(st.clone(), "go", chance=rec)
    (event, _), = rec.events
    assert event.kind == "pick" and event.size == 3
    results = []
    for outcome, p in event.outcomes():
        branch = st.clone()
        engine.apply(branch, "go", chance=Scripted([outcome]))
        results.append((branch.counters["got"], p))
    assert results == [(10, 1 / 3), (20, 1 / 3), (30, 1 / 3)]
    assert st.counters["got"] == 0  # the real game is untouched
    with pytest.raises(ValueError, match="answered 7"):
        engine.apply(st.clone(), "go", chance=Scripted([7]))
