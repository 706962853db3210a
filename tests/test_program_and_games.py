"""One engine, many games: nothing that belongs to one game lives on the engine (issue 9's defects)."""
from __future__ import annotations

from interpreter.agents import make_agents
from interpreter.engine import Engine
from interpreter.trace import ListSink

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
        engine.apply(rollout, agents[rollout.pending["player"]].choose(engine.legal(rollout), rollout))
    assert len(sink.events) == before


def test_a_clone_is_independent_and_plays_the_same_game():
    engine = Engine.load(ROOT / "rulesets" / "kodama.lf")
    st = engine.new_game(3, 4)
    agents = make_agents("random", 3, 2)
    for _ in range(150):
        engine.apply(st, agents[st.pending["player"]].choose(engine.legal(st), st))
    assert not engine.is_over(st)  # the clones have a game left to play
    frozen = st.to_json()
    twin, other = st.clone(), st.clone()
    for clone in (twin, other):  # the same choices from the same state give the same game
        agents = make_agents("random", 3, 7)
        while not engine.is_over(clone):
            engine.apply(clone, agents[clone.pending["player"]].choose(engine.legal(clone), clone))
    assert st.to_json() == frozen
    assert twin.to_json() == other.to_json() and twin.result is not None



WORKER = """
import io, os, pickle, sys
from interpreter.agents import make_agents, play
from interpreter.trace import JsonLinesSink
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

    from interpreter.agents import play
    from interpreter.trace import JsonLinesSink
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
