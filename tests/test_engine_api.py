"""What the engine's API gives the rooms in place of a game's internals: the pending decision
(`Engine.decision`, `current_player`, `option_count`), the places of a view (`Engine.places`), and
the decision records behind them (interpreter/core/ir.py), which keep the JSON shape states and views
have always written."""
from __future__ import annotations

import json
import pickle
import random

import pytest

from interpreter.core import ir
from interpreter.engine import Decision, Engine

from .conftest import ROOT

RULES = """
game "Four questions" {
    players 2..3
    cards "tiny.toml"
}
kind Token { value: int }
zone bag: bag of Token hidden
zone hand: row of Token per player private
zone table: row of Token

action take(p) {
    draw c from bag to p.hand
}

setup {
    for d in defs(Token) {
        create d times 2 into bag
    }
    shuffle bag
    for p in players {
        draw c from bag to p.hand
        draw c from bag to p.hand
    }
}

round {
    phase play each p {
        choose "Keep going?" {
            option yes { }
            option no { }
        }
        choose t in p.hand {
            move t to table
        }
        pick c in p.hand spend c.value within 3 {
            move c to table
        }
        actions 1 for p from take
    }
}
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("four")
    (folder / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (folder / "four.lf").write_text(RULES)
    return Engine.load(folder / "four.lf")


def _line(text: str) -> int:
    return next(i for i, line in enumerate(RULES.splitlines(), 1) if text in line)


def test_the_decision_says_who_what_which_kind_and_where(engine):
    st = engine.new_game(2, 1)
    seen = {}
    while not engine.is_over(st) and len(seen) < 4:
        d = engine.decision(st)
        assert isinstance(d, Decision)
        assert d.player == engine.current_player(st) == st.pending["player"]
        assert d.prompt == st.pending["prompt"]
        assert list(d.options) == engine.legal(st) and engine.option_count(st) == len(d.options)
        seen.setdefault(d.kind, (d, engine.decision_span(st)))
        engine.apply(st, 0)
    assert set(seen) == {"jump", "bind", "pick", "act"}
    assert seen["jump"][0].prompt == "Keep going?" and seen["jump"][0].options == ("yes", "no")
    # Each decision points at the statement asking it (an action menu, asked again after each
    # action, at its own statement too).
    for kind, text in [("jump", 'choose "Keep going?"'), ("bind", "choose t in"), ("pick", "pick c in"),
                       ("act", "actions 1")]:
        span = seen[kind][1]
        assert span.line == _line(text), kind
        assert text in engine.source_of(span.path).splitlines()[span.line - 1]
    # A pick says what each option spends; `stop` spends nothing. Other kinds cost nothing.
    pick = seen["pick"][0]
    values = {"Red": 1, "Blue": 2, "Green": 3}
    assert pick.costs == tuple(0 if label == "stop" else values[label.split(" ")[0]] for label in pick.options)
    assert all(seen[k][0].costs is None for k in ("jump", "bind", "act"))


def test_nothing_is_pending_after_the_set_up(engine):
    st = engine.new_game(2, 2, setup_only=True)
    assert engine.decision(st) is None and engine.current_player(st) is None and engine.option_count(st) == 0
    assert engine.decision_span(st) is None


def test_the_places_of_a_view_are_its_zones_with_what_is_seen(engine):
    st = engine.new_game(2, 3)
    engine.apply(st, 0)
    v = engine.view(st, 0)
    places = engine.places(v)
    assert [p.key for p in places] == list(v.data["zones"])
    assert all(p.kind == "zone" and p.cells is None for p in places)
    handle = 0
    for p in places:
        assert p.first == handle
        handle += len(p.cards)
        # What the view shows by name is exactly what the place shows by definition.
        assert [None if d is None else engine.names[d] for d in p.cards] == v.data["zones"][p.key]
    hand = {p.key: p for p in places}
    assert all(d is not None for d in hand["P1.hand"].cards)
    assert all(d is None for d in hand["P2.hand"].cards) and hand["P2.hand"].cards


@pytest.mark.parametrize("record, shape", [
    (ir.JumpDecision([4, 9]), {"kind": "jump", "pcs": [4, 9]}),
    (ir.BindDecision("t", [3, 5], ("card", "Token")), {"kind": "bind", "var": "t", "values": [3, 5],
                                                       "elem": ("card", "Token")}),
    (ir.PickDecision("c", [2, None], ("card", "Token"), [1, 0], "$left", "$count", 12),
     {"kind": "pick", "var": "c", "values": [2, None], "elem": ("card", "Token"), "costs": [1, 0],
      "left": "$left", "count": "$count", "end": 12}),
    (ir.ActDecision(1, "$left", "$used"), {"kind": "act", "player": 1, "left": "$left", "used": "$used"}),
    (ir.CommitDecision("$together1", 2, [7, 8], ("card", "Token"), False, 5),
     {"kind": "commit", "store": "$together1", "player": 2, "values": [7, 8], "elem": ("card", "Token"),
      "menu": False, "at": 5}),
])
def test_a_decision_record_keeps_the_json_shape_of_the_dict_it_replaces(record, shape):
    written = ir.decision_json(record)
    assert written == shape and list(written) == list(shape)  # the same keys, in the same order
    assert ir.decision_from_json(shape) == record
    loaded = json.loads(json.dumps(written))  # as a view's skeleton holds it: lists for tuples
    assert ir.decision_json(ir.decision_from_json(loaded)) == loaded
    assert pickle.loads(pickle.dumps(record)) == record


def test_every_ask_record_has_its_decision_record():
    assert {c.how for c in (ir.AskOption, ir.AskItem, ir.AskPick, ir.AskAction, ir.AskTogether)} == set(ir.DECISIONS)


def test_states_and_views_write_the_pending_decision_as_data(engine):
    st = engine.new_game(2, 4)
    for _ in range(3):
        data = st.to_json()["pending"]
        assert list(data) == ["player", "prompt", "options", "how"] and list(data["how"])[0] == "kind"
        assert ir.decision_from_json(data["how"]) == st.pending["how"]
        v = engine.view(st, engine.current_player(st))
        dealt = engine.determinize(v, random.Random(0))
        # The dealt game's decision is a record again (its cards numbered as the view's handles).
        assert type(dealt.pending["how"]) is type(st.pending["how"])
        assert [(o.id, o.label) for o in engine.options(dealt)] == [(o.id, o.label) for o in engine.options(st)]
        engine.apply(st, 0)
