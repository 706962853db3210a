"""The display section (rulesdsl/display.py) and the board model drawn from a player's view with it
(interpreter/board): labels, helpers left out, cards grouped and summed up, tracks, markers, grids
as pictures, options named (issue 31, points 1 and 2)."""
from __future__ import annotations

import random

from interpreter.board import build
from interpreter.board.model import Grid, Marker, Pile, Track
from interpreter.board.text import lines
from interpreter.engine import Engine
from rulesdsl.display import fill, parse_template

from .conftest import ROOT, area, exchanged


def _played(engine, players, seed, steps, until=None):
    st = engine.new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if engine.is_over(st) or (until and engine.decision(st).prompt == until):
            break
        engine.apply(st, rng.choice(engine.options(st)))
    return st


def _board(engine, st, seat=None):
    seat = engine.current_player(st) if seat is None else seat
    mine = engine.current_player(st) == seat
    return build(engine, engine.view(st, seat), engine.options(st) if mine else None)


def test_a_template_leaves_out_its_empty_parts_and_writes_doubled_characters():
    parts, problems = parse_template("{name}: cost {cost}[, {sun} sun][, {wind} wind] {{x}} [[1]]")
    assert not problems
    fields = {"name": "Owl", "cost": "3", "sun": "2", "wind": None}
    assert fill(parts, fields.get) == "Owl: cost 3, 2 sun {x} [1]"
    assert fill(parse_template("[no hole]")[0], fields.get) == "no hole"


def test_the_base_board_reads_in_the_display_words_with_cards_grouped():
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    st = _played(engine, 2, 1, 150)
    board = _board(engine, st)
    text = "\n".join(lines(board, 100))
    shared = area(text, "Shared")
    # Labels from the display section; the helpers it calls internal are left out.
    assert "fires in the supply: Fire 2 x" in shared and "Circle of Spirits: P1 at" in shared
    assert "sacred tree: P" in shared
    for helper in ("can_fragment", "can fragment", "line_sun", "line sun", "tree box"):
        assert helper not in text
    # Every zone's identical cards are one group: no name twice in a zone's line.
    for item in board.area(None).items:
        if isinstance(item, Pile):
            names = [g.name for g in item.groups]
            assert len(names) == len(set(names))
    assert any(isinstance(i, Track) for i in board.area(None).items)
    assert any(isinstance(i, Marker) for i in board.area(None).items)
    grids = [i for a in board.areas for i in a.items if isinstance(i, Grid)]
    assert len(grids) == 2 and all(g.cells for g in grids)
    assert "{" not in text and "'" not in text  # no Python dict or repr
    assert dict(board.cards)["Fire 2"] == "fire of 2"


def test_the_duel_board_shows_the_clearing_onibi_and_names_cells_by_the_display():
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    st = _played(engine, 2, 3, 400, until="where to plant")
    assert engine.decision(st).prompt == "where to plant"
    board = _board(engine, st)
    text = "\n".join(lines(board, 100))
    assert "the clearing: onibi at" in area(text, "Shared")
    # The cells offered are named from the middle of the forest, drawn in its picture as [n].
    choices = board.question.choices
    assert choices and all(c.text.count(",") == 1 and "(" not in c.text for c in choices)
    forest = next(i for i in board.area(board.seat).items if isinstance(i, Grid))
    assert len(forest.offered) == len(choices)
    assert "0,0: Summer starting tree" in area(text, "P1") and "0,0: Winter starting tree" in area(text, "P2")
    assert all(f"[{c.number}]" in text for c in choices)
    # Options that are cards carry the card's summary.
    st = _played(engine, 2, 3, 400, until="animal to recruit")
    assert engine.decision(st).prompt == "animal to recruit"
    assert all(c.detail.startswith(c.text) and "cost" in c.detail for c in _board(engine, st).question.choices)


def test_a_board_is_drawn_from_the_view_and_shows_nothing_its_player_may_not_see():
    engine = Engine.load(ROOT / "rulesets" / "dartmoor.lf")
    a = engine.new_game(3, 4)
    b = exchanged(a, "P2.hand")
    assert _board(engine, a, 0) == _board(engine, b, 0)
    assert _board(engine, a, 1) != _board(engine, b, 1)
    assert "hand: 6 cards, hidden" in area("\n".join(lines(_board(engine, a, 0))), "P2")


def test_an_unannotated_ruleset_still_reads_well_and_a_layer_adds_to_the_display(tmp_path):
    (tmp_path / "t.lf").write_text(
        'game "T" { players 2..2 }\n'
        "kind Token { value: int; bonus: int = 0 }\n"
        "zone pool: pile of Token\n"
        "counter spare_points = 0 per player\n"
        "round { phase a each p { set p.spare_points += 1 } }\n"
        "victory for p after a { win if p.spare_points >= 1 rank by p.spare_points }\n")
    (tmp_path / "cards.toml").write_text('[[Token]]\nname = "One"\nvalue = 1\n')
    (tmp_path / "v.lf").write_text('extends "t.lf"\ndisplay {\n  label spare_points "points"\n'
                                   '  card Token "{name} ({value})[ +{bonus}]"\n}\n')
    plain = Engine.load(tmp_path / "t.lf", tmp_path / "cards.toml")
    assert "spare points 1" in area("\n".join(lines(_board(plain, plain.new_game(2, 1), 0))), "P1")
    from interpreter.board.model import summary_of
    assert summary_of(plain, plain.model.display, "One") == "One: value 1"
    layered = Engine.load(tmp_path / "v.lf", tmp_path / "cards.toml")
    assert "points 1" in area("\n".join(lines(_board(layered, layered.new_game(2, 1), 0))), "P1")
    assert summary_of(layered, layered.model.display, "One") == "One (1)"


def test_score_lines_worked_out_from_a_view_are_their_values_in_the_game():
    # A score line reads only what every player sees, so the game dealt from any player's view
    # gives it the value it has in the real game.
    for ruleset, players in (("base.lf", 3), ("duel.lf", 2)):
        engine = Engine.load(ROOT / "rulesets" / ruleset)
        lines_ = engine.display_scores
        assert len(lines_) == 3
        for seed in (1, 2):
            st = _played(engine, players, seed, 120)
            evaluate = engine.evaluator(st)
            truth = tuple((label, tuple(str(evaluate(fn, {var: p})) for p in range(players))) for label, var, fn in lines_)
            for seat in range(players):
                assert _board(engine, st, seat).scores == truth
