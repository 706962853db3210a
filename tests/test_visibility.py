"""Who sees what: one authority (interpreter/visibility.py) answers for a player's view, the public
trace and each player's trace, over places read by one parser (interpreter/place.py)."""
from __future__ import annotations

import pytest

from interpreter.agents import make_agents, play
from interpreter.engine import Engine
from interpreter.trace import render
from interpreter.view import PlayerSink

from .conftest import ROOT

# Every kind of place a player may or may not see: a hidden pile, a pile showing its top card, a
# hand seen by its owner, a private grid per player, a hidden grid, cards' slots (one hidden, one
# public) holding the cards of others' turns, a card's own counter, reveals to one player and to all.
SIGHTS = """
game "Sights" { players 2..2 cards "tiny.toml" round_limit 4 }
kind Token {
    value: int
    counter marks = 0
    slot under: pile of Token hidden
    slot over: row of Token
}
zone stock: pile of Token hidden
zone shelf: pile of Token hidden except top
zone table: row of Token
zone hand: bag of Token private per player
zone vault_out: pile of Token hidden
grid mat: 3 x 1 of Token private per player
grid vault: 3 x 1 of Token hidden
counter turns = 0 per player
setup {
    create defs(Token) times 6 into stock
    shuffle stock
    repeat 3 { draw c from stock to shelf }
    for p in players {
        repeat 3 { draw c from stock to p.hand }
    }
    place top(stock) on vault at cell(vault, 1, 1)
    place top(stock) on vault at cell(vault, 2, 1)
}
round {
    phase play each p {
        set p.turns += 1
        choose t in p.hand by p {
            move t to table
            set t.marks += t.value
            if count(stock) > 0 { move top(stock) to slot(t, under) }
            if count(shelf) > 0 { move top(shelf) to slot(t, over) }
        }
        if count(p.hand) > 0 {
            place first(p.hand) on p.mat at cell(p.mat, p.turns, 1)
        }
        if count(p.hand) > 0 {
            reveal first(p.hand) to p
        }
        if count(shelf) > 0 {
            reveal top(shelf)
        }
        if p.turns == 2 and card_at(vault, cell(vault, p.turns - 1, 1)) != none {
            move card_at(vault, cell(vault, p.turns - 1, 1)) to vault_out
        }
        if p.turns == 3 { end game }
    }
}
victory for p after play {
    score points = p.turns
    win if false
    rank by points
}
"""


@pytest.fixture(scope="module")
def sights(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sights")
    (folder / "sights.lf").write_text(SIGHTS)
    (folder / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    return Engine.load(folder / "sights.lf")


def events_of(engine, players, seed, decisions=None) -> list[dict]:
    """The public events of a game of random agents, stopped after `decisions` decisions if given."""
    events = []
    st = engine.new_game(players, seed, sink=events.append)
    play(engine, st, make_agents("random", players, seed), events.append, max_decisions=decisions)
    return events


def player_trace(engine, events, player) -> str:
    """The readable trace of `events` as `player` is given it, states in full."""
    seen = []
    sink = PlayerSink(engine.program, player, seen.append)
    for e in events:
        sink(e)
    return "\n".join(line for e in seen for line in render(e, full_state=True)) + "\n"


# The golden files were written by the engine of 816b91d, before the authority: a player's trace
# reads the same now.
GAMES = [("sights", 2, 1, None), ("sights", 2, 4, None), ("hands", 3, 2, None), ("duel", 2, 1, None),
         ("dartmoor", 2, 23, 40)]


@pytest.mark.parametrize("game,players,seed,decisions", GAMES, ids=[f"{g}-{p}p-seed{s}" for g, p, s, _ in GAMES])
def test_each_players_trace_is_unchanged(sights, text_snapshot, game, players, seed, decisions):
    if game == "sights":
        engine = sights
    elif game == "hands":
        engine = Engine.load(ROOT / "tests" / "rulesets" / "hands.lf")
    else:
        engine = Engine.load(ROOT / "rulesets" / f"{game}.lf")
    events = events_of(engine, players, seed, decisions)
    text = "".join(f"######## P{p + 1}\n" + player_trace(engine, events, p) for p in range(players))
    assert "?" in text  # each game hides something from someone
    assert text == text_snapshot
