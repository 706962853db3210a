"""`lfdsl play`: the terminal table (interpreter/table). A whole Duel game played through Textual's
test pilot, a screen that shows only what its player may see, save and resume giving the same
game as one played without a break, a changed ruleset refused, undo, and hot seat."""
from __future__ import annotations

import asyncio
import json
import re
import shutil

import pytest

from interpreter.engine import Engine
from interpreter.table.app import Cover, PlayApp, board_text, rule_text
from interpreter.table.session import SaveError, Table
from interpreter.tools.trace import JsonLinesSink

from .conftest import ROOT, area, exchanged


def run(coro):
    return asyncio.run(coro)


def _duel_table(agents: str, seed: int = 3):
    """A Duel table for `agents` and the app that shows it."""
    table = Table(Engine.load(ROOT / "rulesets" / "duel.lf"), 2, seed, agents)
    return table, PlayApp(table)


def test_a_whole_duel_is_played_at_the_table_with_the_keyboard():
    from interpreter.tools.cli import build_parser, play_app
    args = build_parser().parse_args(["play", str(ROOT / "rulesets" / "duel.lf"), "--seat", "1",
                                      "--agents", "human,random", "--seed", "3"])
    app = play_app(args)  # what `lfdsl play rulesets/duel.lf --seat 1 --agents human,random` opens
    table = app.table

    async def play():
        async with app.run_test(size=(140, 44)) as pilot:
            presses = 0
            while not table.over and presses < 1000:
                await pilot.press("enter")  # the highlighted option: the first
                presses += 1
            await pilot.pause()
            prompt = str(app.query_one("#prompt").render())
            return presses, prompt
    presses, prompt = run(play())
    assert table.over and presses > 5
    assert prompt.startswith("Game over. Winners:")
    # Every decision of seat 1 was the person's: the first option each time.
    assert len(table.history) > presses


def test_numbers_and_the_start_of_a_label_choose():
    table, app = _duel_table("human,random")

    async def play():
        async with app.run_test(size=(140, 44)) as pilot:
            while len(table.state.pending["options"]) < 2:
                await pilot.press("enter")
            labels = list(table.state.pending["options"])
            done = len(table.history)
            await pilot.press("2")
            first = table.history[done]
            labels2 = list(table.state.pending["options"]) if not table.over else []
            target = next((i for i, label in enumerate(labels2) if label[0].isalpha() and label[0].lower() not in "suhq"
                           and all(not other.lower().startswith(label[0].lower()) for other in labels2[:i])), None)
            if target is not None:
                await pilot.press(labels2[target][0].lower())
                await pilot.press("enter")
            return labels, first, target
    labels, first, target = run(play())
    assert len(labels) >= 2 and first == 1  # "2" took the second option
    if target is not None:
        assert table.history[-1] == target or table.over


def duel_states():
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    st = engine.new_game(2, 5)
    return engine, st, exchanged(st, "P2.deck")


def test_the_screen_shows_only_what_its_player_sees():
    engine, st, other = duel_states()
    assert board_text(engine, st, 0) == board_text(engine, other, 0)
    # The other player's private hand: two of its cards exchange what they are, P1's screen does not
    # change, P2's does.
    dm = Engine.load(ROOT / "rulesets" / "dartmoor.lf")
    a = dm.new_game(2, 4)
    b = exchanged(a, "P2.hand")
    b.zones["P2.hand"][0], b.zones["P2.hand"][-1] = b.zones["P2.hand"][-1], b.zones["P2.hand"][0]
    assert board_text(dm, a, 0) == board_text(dm, b, 0)
    assert "hand: 6 cards, hidden" in area(board_text(dm, a, 0), "P2")
    assert board_text(dm, a, 1) != board_text(dm, b, 1)
    text = board_text(engine, st, 0)
    assert "hidden" in next(line for line in area(text, "P2").splitlines() if line.startswith("deck:"))
    # The events panel reads the events through the player's filter.
    table = Table(Engine.load(ROOT / "rulesets" / "dartmoor.lf"), 2, 23, "human,random")
    app = PlayApp(table)
    table.advance()
    for _ in range(25):
        if table.over:
            break
        table.choose(0)
    shown = "\n".join(app.events[0])
    assert "#?." in shown and not re.search(r"#[0-9]+\.", shown)  # slots, never by card number
    drawn = [line for line in app.events[0] if "-> P2.hand" in line]
    assert drawn and all(line.strip().startswith(("?", "a hidden card")) for line in drawn)


def scripted(engine, seed, stop=None, save=None):
    """Seat 1 takes its first option every time; returns the table and its JSON Lines trace."""
    out = []
    table = Table(engine, 2, seed, "human,random", sink=JsonLinesSink(_Lines(out)))
    table.advance()
    while not table.over:
        if stop is not None and len(table.history) >= stop:
            table.save(save)
            return table, out
        table.choose(0)
    return table, out


class _Lines:
    def __init__(self, out):
        self.out = out

    def write(self, text):
        self.out.append(text)

    def flush(self):
        pass


def test_save_at_decision_40_resume_and_finish_give_the_uninterrupted_game(tmp_path):
    engine = Engine.load(ROOT / "rulesets" / "duel.lf", search=(ROOT,))
    _, whole = scripted(engine, 7)
    save = tmp_path / "game.json"
    scripted(engine, 7, stop=40, save=save)
    data = json.loads(save.read_text())
    assert data["format"] == "lfdsl saved game 1" and len(data["history"]) >= 40
    out = []
    # The save lies outside the ruleset's project: the user widens it (`--path`).
    table = Table.resume(save, sink=JsonLinesSink(_Lines(out)), search=(ROOT,))
    while not table.over:
        table.choose(0)
    assert "".join(out) == "".join(whole)


def test_a_changed_ruleset_refuses_to_resume(tmp_path):
    for name in ("duel.lf",):
        shutil.copy(ROOT / "rulesets" / name, tmp_path / name)
    (tmp_path / "cards").mkdir()
    shutil.copy(ROOT / "cards" / "duel.toml", tmp_path / "cards" / "duel.toml")
    (tmp_path / "lfdsl.toml").write_text("")
    rules = tmp_path / "duel.lf"
    rules.write_text(rules.read_text().replace('"../cards/duel.toml"', '"cards/duel.toml"'))
    engine = Engine.load(rules)
    save = tmp_path / "game.json"
    scripted(engine, 3, stop=10, save=save)
    rules.write_text(rules.read_text().replace("param fire_goal = 8", "param fire_goal = 9"))
    with pytest.raises(SaveError) as err:
        Table.resume(save)
    assert "the game was saved with other rules" in err.value.render() and "duel.lf" in err.value.render()


def test_undo_takes_the_game_back_to_the_persons_previous_decision():
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    table = Table(engine, 2, 11, "human,random")
    table.advance()
    before = (list(table.state.pending["options"]), len(table.history))
    table.choose(0)
    while not table.over and table.seat_to_play != 0:
        table.advance()
    assert table.undo()
    assert (list(table.state.pending["options"]), len(table.history)) == before
    assert table.seat_to_play == 0


def test_hot_seat_covers_the_board_between_two_people():
    table, app = _duel_table("human,human")

    async def play():
        async with app.run_test(size=(140, 44)) as pilot:
            first = table.seat_to_play
            while table.seat_to_play == first:
                await pilot.press("enter")
            await pilot.pause()
            covered = isinstance(app.screen, Cover)
            await pilot.press("enter")  # the next person uncovers the board
            await pilot.pause()
            return covered, isinstance(app.screen, Cover), app.shown_seat
    covered, still, shown = run(play())
    assert covered and not still and shown == table.seat_to_play


def test_the_rule_being_decided_is_shown_from_its_source():
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    table = Table(engine, 2, 3, "human,random")
    table.advance()
    text = rule_text(engine, table.state)
    assert "duel.lf:" in text and "choose" in text


def test_the_command_refuses_a_seat_that_does_not_exist(capsys):
    from interpreter.tools.cli import main
    assert main(["play", str(ROOT / "rulesets" / "duel.lf"), "--seat", "3"]) == 2
    assert "--seat takes a seat from 1 to 2, not 3" in capsys.readouterr().err


def test_resume_needs_no_ruleset_and_says_what_is_wrong(tmp_path, capsys):
    from interpreter.tools.cli import main
    assert main(["play"]) == 2
    assert "play needs a ruleset, or --resume FILE" in capsys.readouterr().err
    (tmp_path / "not.json").write_text("{}")
    assert main(["play", "--resume", str(tmp_path / "not.json")]) == 2
    assert "not a saved game of this version of lfdsl" in capsys.readouterr().err


def test_the_table_shows_the_new_shapes_of_games_as_its_player_may_see_them():
    # 6 nimmt! (simultaneous choices, hands): the board says the hand; the events show the others'
    # choices as `?` until all are revealed. For Sale: the others' hidden coins are `?`.
    from interpreter.table.app import board_text
    six = Engine.load(ROOT / "examples" / "sixnimmt" / "sixnimmt.lf")
    table = Table(six, 3, 3, "random,human,random")
    app = PlayApp(table)

    async def first_turn():
        async with app.run_test(size=(140, 44)) as pilot:
            await pilot.pause()
            board = board_text(six, table.state, 1)
            await pilot.press("1")
            await pilot.pause()
            return board, "\n".join(app.events[1])
    board, events = run(first_turn())
    assert board.startswith("You are P2.  Hand 1, round 1, phase turn")
    assert "P1 card to play, unseen by the others: ?" in events
    assert "P3 card to play, unseen by the others: ?" in events and "together, card to play: P1 " in events
    sale = Engine.load(ROOT / "examples" / "forsale" / "forsale.lf")
    text = board_text(sale, sale.new_game(4, 1), 1)
    assert "coins ?; bid 0; bidding 1" in area(text, "P1") and "coins 18; bid 0; bidding 1" in area(text, "P2")


def test_a_resumed_game_shows_its_whole_event_log_and_refuses_another_ruleset(tmp_path, capsys):
    from interpreter.tools.cli import main
    engine = Engine.load(ROOT / "rulesets" / "duel.lf", search=(ROOT,))
    save = tmp_path / "game.json"
    table, _ = scripted(engine, 7, stop=40, save=save)
    assert main(["play", str(ROOT / "rulesets" / "base.lf"), "--resume", str(save), "--path", str(ROOT)]) == 2
    err = capsys.readouterr().err
    assert "was played with" in err and "base.lf" in err and "leave the ruleset out" in err
    # Before the app is drawn, the game is played again with the app's sink: the log holds the
    # events from the first, as the uninterrupted game's person read them.
    resumed = Table.resume(save, search=(ROOT,))
    app = PlayApp(resumed)
    fresh = Table(engine, 2, 7, "human,random")
    whole = PlayApp(fresh)
    fresh.advance()
    while len(fresh.history) < len(resumed.history):
        fresh.choose(0)
    assert fresh.history == resumed.history
    assert app.events[0][0] == "== setup ==" and app.events[0] == whole.events[0]
