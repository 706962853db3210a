"""`on leave ZONE (card, owner)`: a trigger for a card leaving a zone, by a move, a draw or a place."""
from __future__ import annotations

import pytest

from interpreter.engine import Engine
from interpreter.tools.trace import ListSink
from rulesdsl.errors import LanguageError

from .conftest import ROOT

RULES = """
game "Leaving" { players 2..2 cards "tiny.toml" round_limit 1 }
kind Token { value: int }
zone deck: pile of Token
zone spare: pile of Token
zone hand: bag of Token per player
zone table: row of Token
grid board: 3 x 1 of Token
counter gone = 0
setup {
    create defs(Token) into deck
    create defs(Token) into spare
}
on leave deck (c, owner) {
    set gone += 1
    log "left the deck:", c, owner
}
on enter hand (c, owner) {
    log "entered the hand of", owner, c
}
on leave hand (c, owner) {
    log "left the hand of", owner, c
}
on leave spare (c, owner) {
    log "left the spare pile:", c
}
on leave table (c, owner) {
    log "left the table:", c
}
round {
    phase play {
        draw a from deck to player(1).hand
        move a to table
        place top(table) on board at cell(board, 1, 1)
        repeat 2 { draw b from deck to player(2).hand }
        draw d from deck refill spare to table
        move deck to table
        log "reversed:", names(reverse(table where it.value > 1))
        log "sets:", set_sizes(table + (table where it.value > 1), it.name)
        win player(1) "done"
    }
}
"""


def logs(tmp_path, rules=RULES):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "leaving.lf").write_text(rules)
    engine = Engine.load(tmp_path / "leaving.lf")
    sink = ListSink()
    st = engine.new_game(2, 1, sink=sink)
    return st, [ev["data"]["text"] for ev in sink.events if ev["event"] == "log"]


def test_a_card_leaving_a_zone_runs_its_leave_triggers_before_the_enter_triggers(tmp_path):
    st, lines = logs(tmp_path)
    assert lines == [
        "left the deck: Green none", "entered the hand of P1 Green",  # a draw: leave, then enter
        "left the hand of P1 Green",                                   # a move: the owner it left
        "left the table: Green",                                       # a place onto the board
        "left the deck: Blue none", "entered the hand of P2 Blue",
        "left the deck: Red none", "entered the hand of P2 Red",
        "left the deck: Green none",   # drawn after the refill, which moved the spare pile's cards
        #                                into the deck with no leave trigger (as with enter)
        "left the deck: Red none", "left the deck: Blue none",       # a whole zone, card by card
        "reversed: [Blue, Green]",
        "sets: [3, 2]",
    ]
    assert st.counters["gone"] == 6


def test_leave_needs_a_zone_and_binds_two_names(tmp_path):
    for wrong, message in (("on leave board (c, owner) {", "`board` is not a zone"),
                           ("on leave deck (c) {", "`on leave` binds 2 names: (card, owner)")):
        with pytest.raises(LanguageError) as err:
            logs(tmp_path, RULES.replace("on leave deck (c, owner) {", wrong))
        assert message in err.value.render()
