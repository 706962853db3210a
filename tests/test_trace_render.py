"""The text log tells a move to the bottom of a zone (`move ... under`) from a move on top."""
from __future__ import annotations

from interpreter.engine import Engine
from interpreter.tools.trace import ListSink, render

from .conftest import ROOT

RULES = """game "Under" {{
    players 1..1
    cards "{cards}"
}}
kind Token {{ value: int }}
zone bag: bag of Token
zone hand: row of Token per player
setup {{
    create defs(Token) into bag
}}
round {{
    phase a each p {{
        move top(bag) under p.hand
        move top(bag) to p.hand
        choose "again?" {{ option go {{ }} }}
    }}
}}
"""


def _event(data):
    return {"seq": 1, "round": 1, "phase": "a", "player": None, "event": "move", "data": data}


def test_render_move_under():
    assert render(_event({"card": "Red", "from": "bag", "to": "P1.hand", "bottom": True})) == [
        "    Red: bag -> under P1.hand"]
    assert render(_event({"card": "Red", "from": "bag", "to": "P1.hand"})) == ["    Red: bag -> P1.hand"]


def test_engine_marks_moves_to_the_bottom(tmp_path):
    path = tmp_path / "under.lf"
    (path.parent / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    path.write_text(RULES.format(cards="tiny.toml"))
    engine = Engine.load(path)
    sink = ListSink()
    st = engine.new_game(1, 1, sink=sink)
    moves = [e["data"] for e in sink.events if e["event"] == "move"]
    assert [m.get("bottom", False) for m in moves] == [True, False]
    assert "bottom" not in moves[1]
    # The card moved under is below the one moved on top.
    hand = st.zones["P1.hand"]
    assert [engine.names[st.card_def[c]] for c in hand] == [moves[0]["card"], moves[1]["card"]]
