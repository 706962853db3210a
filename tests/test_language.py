"""Generic constructs on small rulesets: tracks, grids, triggers, limits, keyed counters, bounds."""
from __future__ import annotations

import pytest

from interpreter.tools.agents import make_agents, play
from interpreter.engine import Engine, GameError
from interpreter.tools.trace import ListSink
from rulesdsl.errors import LanguageError

from .conftest import ROOT

RULES = ROOT / "tests" / "rulesets"


@pytest.fixture(scope="module")
def race():
    return Engine.load(RULES / "race.lf")


def run_until(engine, st, pred, limit=200, sink=None):
    agents = make_agents("first", st.player_count, 0)
    for _ in range(limit):
        if pred(st) or engine.is_over(st):
            return st
        engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), st), sink)
    return st


def test_setup_places_pieces_and_gives_the_marker(race):
    st = race.new_game(3, 1)
    assert st.tracks["ring"] == {"P1": 0, "P2": 1, "P3": 2}
    assert st.markers["lead"] == 0
    assert len(st.zones["bag"]) == 9
    assert st.pending["player"] == 0 and st.pending["prompt"] == "action"
    assert race.legal(st) == ["step", "build"]


def test_advance_counts_free_spaces_and_runs_the_jump_body(race):
    st = race.new_game(3, 1)
    st.counters["score"] = [0, 4, 4]
    race.apply(st, "step")
    assert race.legal(st) == ["1", "2"]
    race.apply(st, "1")
    # P1 at 0 jumps P2 (1) and P3 (2), lands on 3: two jumps, each costing the jumped player 1.
    assert st.tracks["ring"]["P1"] == 3
    assert st.counters["score"] == [2, 3, 3]


def test_landing_data_is_read_from_the_space(race):
    st = race.new_game(2, 1)
    race.apply(st, "step")
    race.apply(st, "2")          # 0 -> 1 is P2, jumped; free spaces 2 and 3: lands on 3 (gain 2)
    assert st.tracks["ring"]["P1"] == 3
    assert st.counters["score"][0] == 2
    st2 = race.new_game(2, 1)
    race.apply(st2, "step")
    race.apply(st2, "1")         # lands on 2, whose gain is 1
    assert st2.tracks["ring"]["P1"] == 2 and st2.counters["score"][0] == 1


def test_distinct_actions_without_unlock(race):
    st = race.new_game(2, 1)
    race.apply(st, "step")
    race.apply(st, "1")
    assert race.legal(st) == ["build"]


def test_grid_hole_fill_trigger_and_line_data(race):
    st = race.new_game(2, 3)
    sink = ListSink()
    race.apply(st, "build", sink)
    assert race.legal(st) == ["Blue", "Green", "Red"]    # copies in one place are one option
    race.apply(st, "Green", sink)
    assert race.legal(st) == ["(1,1)", "(1,2)", "(2,1)", "(3,1)", "(3,2)"]  # (2,2) is a hole
    race.apply(st, "(3,2)", sink)
    fills = [e["data"]["line"] for e in sink.events if e["event"] == "fill"]
    assert fills == []
    grid = st.grids["P1.board"]
    assert grid.get(5) is not None and grid.get(4) is None


def test_row_completion_adds_its_bonus():
    engine = Engine.load(RULES / "race.lf")
    st = engine.new_game(2, 4, setup_only=True)
    # Fill row 1 but one cell by hand, then let a build complete it.
    bag = st.zones["bag"]
    for cell in (0, 1):
        card = bag.pop()
        st.grids["P1.board"][cell] = card
        st.loc[card] = "P1.board"
    engine.start_at(st, "play", 0)
    engine.apply(st, "build")
    engine.apply(st, engine.legal(st)[0])
    engine.apply(st, "(3,1)")
    assert st.counters["score"][0] == 5


def test_zone_limit_refuses_and_enter_trigger_counts(race):
    sink = ListSink()
    st = race.new_game(2, 5, sink=sink)
    st = run_until(race, st, lambda s: s.round >= 2, sink=sink)
    assert len(st.zones["shelf"]) == 2
    blocked = [e for e in sink.events if e["event"] == "blocked"]
    assert blocked and all(e["data"]["limit"] == 2 for e in blocked)
    assert sum(st.counters["seen"].values()) == 2


def test_threshold_trigger_fires_once_when_reached(race):
    st = race.new_game(2, 6)
    st.counters["score"] = [5, 0]
    race.apply(st, "step")
    race.apply(st, "1")      # lands on a space with gain 1: total 6 after the turn
    race.apply(st, "build")
    race.apply(st, race.legal(st)[0])
    race.apply(st, race.legal(st)[0])
    assert st.counters["reached"][0] == 1
    assert st.counters["reached"][1] == 0


@pytest.mark.parametrize("seed", range(20))
def test_random_race_games_end(race, seed):
    st = race.new_game(2 + seed % 2, seed)
    play(race, st, make_agents("random", st.player_count, seed))
    assert st.result["winners"]


def test_step_budget_names_the_loop():
    engine = Engine.load(RULES / "loop.lf")
    with pytest.raises(GameError) as info:
        engine.new_game(1, 0)
    d = info.value.diagnostic
    assert "more than 500 steps" in d.message and "phase `spin`" in d.message
    # The budget runs out inside the loop: on its test or on its body.
    assert (d.line, d.source_line.strip()) in ((12, "while n >= 0 {   # never false: the step budget must stop it"),
                                               (13, "set n += 1"))


def test_round_limit_is_a_clear_error():
    engine = Engine.load(RULES / "endless.lf")
    st = engine.new_game(2, 0)
    with pytest.raises(GameError) as info:
        play(engine, st, make_agents("first", 2, 0))
    assert "did not end within 5 rounds" in info.value.diagnostic.message


def test_params_can_be_set():
    """`target` (6 by default) is the score that wins the race; set to 3, the same game ends earlier,
    and exactly the players with 3 points or more reached it."""
    games = {}
    for target in (None, "3"):
        engine = Engine.load(RULES / "race.lf", params={"target": target} if target else None)
        st = engine.new_game(2, 1)
        play(engine, st, make_agents("random", 2, 1))
        games[target] = (engine.params["target"], st.result)
    (default, default_result), (lowered, result) = games[None], games["3"]
    assert (default, lowered) == (6, 3)
    assert result["round"] < default_result["round"]
    for target, res in ((default, default_result), (lowered, result)):
        assert res["reached"] == [p for p, c in res["counts"].items() if c["points"] >= target], res
        assert res["winners"] and set(res["winners"]) <= set(res["reached"])


def write_rules(tmp_path, text, cards='[[Token]]\nname = "Red"\nvalue = 1\n'):
    (tmp_path / "c.toml").write_text(cards)
    path = tmp_path / "r.lf"
    path.write_text('game "G" { players 2..3 cards "c.toml" }\nkind Token { value: int }\n' + text)
    return path


def test_params_may_use_earlier_params_and_player_count_is_known_at_start(tmp_path):
    path = write_rules(tmp_path, """
param a = 2
param b = a + 1
zone shelf: row of Token limit player_count + b
counter n = player_count * 10
round { phase x each p { choose { option go { set n += b } } } }
victory for p after x { win if n > 40 rank by 0 }
""")
    engine = Engine.load(path)
    assert engine.params == {"a": 2, "b": 3}
    st = engine.new_game(3, 0)
    assert st.counters["n"] == 30 and st.zone_limits["shelf"] == 6


def test_a_bonus_action_is_decided_by_its_first_argument(tmp_path):
    path = write_rules(tmp_path, """
counter got = 0 per player
action gift(p, amount = 1) {
    choose { option take { set p.got += amount } option leave { set p.got += 0 } }
}
round { phase x { for q in players { do gift(q) } } }
victory for p after x { win if p.got > 0 rank by 0 }
""")
    engine = Engine.load(path)
    st = engine.new_game(2, 0)
    assert st.pending["player"] == 0
    engine.apply(st, "take")
    assert st.pending["player"] == 1


def test_card_data_naming_an_unknown_action_is_a_card_error(tmp_path):
    from rulesdsl.errors import CardError
    path = write_rules(tmp_path, """
kind Tile { effect: action = none }
action score(p, amount = 0) { set p.points += 1 }
counter points = 0 per player
round { phase x each p { choose { option a { set p.points += 1 } } } }
""", cards='[[Token]]\nname = "Red"\nvalue = 1\n[[Tile]]\nname = "T"\neffect = "scroe"\n')
    with pytest.raises(CardError) as info:
        Engine.load(path)
    assert "'scroe' is not an action" in info.value.render() and "did you mean `score`?" in info.value.render()


def test_an_action_named_only_by_card_data_is_reachable(tmp_path):
    path = write_rules(tmp_path, """
kind Tile { effect: action = none }
zone tiles: bag of Tile
action score(p, amount = 0) { set p.points += 1 }
counter points = 0 per player
setup { create defs(Tile) into tiles }
round { phase x each p { for t in tiles { do t.effect(p) } } }
victory for p after x { win if p.points >= 2 rank by 0 }
""", cards='[[Token]]\nname = "Red"\nvalue = 1\n[[Tile]]\nname = "T"\neffect = "score"\n')
    st = Engine.load(path).new_game(2, 0)
    assert st.result["winners"] == ["P1", "P2"]
    assert "shared win" in st.result["reason"]


def test_draw_into_a_full_zone_binds_none(tmp_path):
    path = write_rules(tmp_path, """
zone pile: pile of Token
zone slot: row of Token limit 1
counter drawn = 0
setup { create defs(Token) times 3 into pile }
round { phase x {
    draw a from pile to slot
    draw b from pile to slot
    if a != none and b == none { set drawn = 1 }
} }
victory for p after x { win if drawn == 1 rank by 0 }
""")
    st = Engine.load(path).new_game(2, 0)
    assert st.result is not None and len(st.zones["pile"]) == 2


def test_errors_while_starting_a_phase_are_positioned(tmp_path):
    path = write_rules(tmp_path, """
marker lead
round {
    phase x turns p from holder(lead) { give lead to p }
}
""")
    engine = Engine.load(path)
    with pytest.raises(GameError) as info:
        engine.new_game(2, 0)
    d = info.value.diagnostic
    assert (d.line, d.col) == (6, 26) and "starts from nobody" in d.message


# ---- pieces, routines, perform, win, edge links, blocks, list built-ins (tests/rulesets/links.lf)
@pytest.fixture(scope="module")
def links():
    return Engine.load(RULES / "links.lf")


def test_a_piece_that_belongs_to_no_player(links):
    st = links.new_game(2, 1)
    assert st.tracks["loop"] == {"P1": None, "P2": None, "runner": 0}
    links.apply(st, "run_loop")
    assert st.tracks["loop"]["runner"] == 2 and st.counters["score"] == [0, 0]
    links.apply(st, "run_loop")            # P2 moves it on to 4, whose gain is 3
    assert st.tracks["loop"]["runner"] == 4 and st.counters["score"] == [0, 3]


def test_routine_runs_without_an_action_event_and_perform_is_not_a_bonus(links):
    sink = ListSink()
    st = links.new_game(2, 2, sink=sink)
    links.apply(st, "lay_pipe", sink)
    links.apply(st, links.legal(st)[0], sink)
    links.apply(st, links.legal(st)[0], sink)
    actions = [e["data"] for e in sink.events if e["event"] == "action"]
    assert actions == [{"name": "lay", "bonus": False}]
    assert st.counters["score"][0] == 1          # the routine ran


def test_edges_decide_where_a_pipe_fits(links):
    st = links.new_game(2, 3)
    links.apply(st, "lay_pipe")
    # A straight east-west pipe links to the hub only on its east or west side.
    links.apply(st, "Straight EW")
    assert links.legal(st) == ["(3,4)", "(5,4)"]
    links.apply(st, "(5,4)")
    links.apply(st, "lay_pipe")                 # P2's turn
    links.apply(st, "Straight NS")
    assert links.legal(st) == ["(4,3)", "(4,5)"]


def test_a_blank_tile_fits_nowhere_and_is_not_offered(links):
    st = links.new_game(2, 3, setup_only=True)
    supply = [links.names[st.card_def[c]] for c in st.zones["supply"]]
    links.arrange(st).fill_zone("supply", supply + ["Blank"])   # a tile with no opening joins the supply
    assert [links.names[st.card_def[c]] for c in st.zones["supply"]][-1] == "Blank"
    links.start_at(st, "turn", 0)
    links.apply(st, "lay_pipe")
    assert links.legal(st) == ["Corner NE", "Straight EW", "Straight NS"]


def test_win_ends_the_game_at_once_with_seat_names(links):
    st = links.new_game(2, 4)
    st.counters["score"] = [6, 0]
    links.apply(st, "run_loop")
    assert st.result["winners"] == ["P1"] and st.result["reason"] == "six points"
    assert st.result["seats"] == {"P1": "North", "P2": "South"}
    assert st.pending is None and st.stack == []


def test_list_built_ins(links, tmp_path):
    from interpreter.tools.scenario import Runner
    st = links.new_game(2, 5)
    runner = Runner.__new__(Runner)
    runner.engine, runner.path = links, tmp_path / "x"
    ev = lambda text: runner.evaluate(text, st)  # noqa: E731
    assert ev('min_by(supply, it.value).name') == "Corner NE"
    assert ev('max_by(supply, it.value).name') == "Straight NS"
    assert ev('index_of(supply, min_by(supply, it.value))') == 6
    assert ev('names(slice(supply, 0, 2))') == ["Straight EW", "Straight EW"]
    assert ev('names(reverse(supply))') == list(reversed(ev('names(supply)')))
    assert ev('first(reverse(supply)) == last(supply)') is True and ev('reverse([])') == []
    counts = {}
    for name in ev('names(supply)'):
        counts[name] = counts.get(name, 0) + 1
    assert max(counts.values()) > 1 and len(counts) > 1  # sets of several sizes
    assert ev('set_sizes(supply, it.name)') == [sum(1 for c in counts.values() if c >= i)
                                                for i in range(1, max(counts.values()) + 1)]
    assert ev('set_sizes([], it)') == [] and ev('set_sizes([1, 1, 2, 3], it)') == [3, 1]
    assert ev('sum(set_sizes(supply, it.name), [0, 1, 10, 100, 1000][it])') > 0
    assert ev('field(first(supply), "value")') == 2
    assert ev('cell_of(shelf, card_at(shelf, cell(shelf, 2, 1))) == cell(shelf, 2, 1)') is True
    assert ev('names(shelf)') == ["Blank", "Blank", "Blank"]
    assert ev('space_at(loop, 4).gain') == 3
    assert ev('has_block(player(1).board, 1, 1) and not has_block(player(1).board, 2, 1)') is True
    assert ev('count(filled_cells(player(1).board))') == 1


def test_choosing_a_target_player(tmp_path):
    path = write_rules(tmp_path, """
counter hits = 0 per player
round { phase x each p {
    choose q in players where it != p {
        set q.hits += 1
    }
} }
victory for p after x { win if p.hits >= 2 rank by p.hits }
""")
    engine = Engine.load(path)
    st = engine.new_game(3, 0)
    assert st.pending["prompt"] == "choose q" and engine.legal(st) == ["P2", "P3"]
    engine.apply(st, "P3")
    assert st.counters["hits"] == [0, 0, 1]
    assert engine.legal(st) == ["P1", "P3"]


def test_a_game_that_only_asks_questions_hits_the_decision_limit(tmp_path):
    path = write_rules(tmp_path, """
counter n = 0
round { phase x {
    while n >= 0 {
        choose by player(1) { option a { set n += 1 } option b { set n += 2 } }
    }
} }
""").read_text()
    (tmp_path / "r.lf").write_text(path.replace('cards "c.toml" }', 'cards "c.toml" decision_limit 50 }'))
    engine = Engine.load(tmp_path / "r.lf")
    st = engine.new_game(2, 0)
    with pytest.raises(GameError) as info:
        play(engine, st, make_agents("first", 2, 0))
    assert "more than 50 decisions in one game" in info.value.diagnostic.message


def test_huge_counts_are_errors_not_crashes(tmp_path):
    path = write_rules(tmp_path, """
counter n = 0
round { phase x { repeat 1000000000000000000 { set n += 1 } } }
""")
    engine = Engine.load(path)
    with pytest.raises(GameError) as info:
        engine.new_game(2, 0)
    assert "more than the step budget" in info.value.diagnostic.message


TYPED = """
game "Typed" { players 2..2 cards "typed.toml" }
kind Card {
    value: int = 0
}
zone deck: pile of Card
zone table: row of Card
counter gold = 0 per player
def total(cs: list of Card) = sum(cs, it.value)
def worth(c: Card = none) = if c == none then 0 else c.value
routine take(p, c: Card, n: int = 1) {
    move c to table
    set p.gold += n + worth(c) + total(deck) + total(table where it.value > 0) + worth()
}
setup {
    create defs(Card) into deck
    create defs(Card) into deck
}
round {
    phase a each p {
        if count(deck) > 0 {
            do take(p, top(deck))
        } else {
            end game
        }
    }
}
"""


def test_typed_parameters_take_cards_lists_zones_and_an_optional_none(tmp_path):
    # docs/language.md, "Typed parameters": `c: Card` with no default is given by every `do`,
    # `c: Card = none` is optional, and a zone passed as `list of Card` is its cards.
    (tmp_path / "typed.toml").write_text('[[Card]]\nname = "A"\nvalue = 2\n')
    (tmp_path / "typed.lf").write_text(TYPED)
    engine = Engine.load(tmp_path / "typed.lf")
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("random", 2, 1))
    # P1: 1 + its card (2) + the deck's other card (2) + the table (2); P2: 1 + 2 + 0 + 4.
    assert st.counters["gold"] == [7, 7]
    from rulesdsl import unparse
    from rulesdsl.parser import parse
    text = unparse.program(parse(TYPED, "typed.lf").items)
    assert "def total(cs: list of Card) =" in text and "routine take(p, c: Card, n: int = 1)" in text


NOBODY = """
game "Nobody" { players 2..2 cards "nobody.toml" }
kind Token { value: int }
counter pot = 0
counter gold = 0 per player
routine deal() {
    set pot += 1
}
routine score(level: int) {
    set pot += level
    choose "bonus" by player(1) {
        option yes { set player(1).gold += level }
        option no { }
    }
}
round {
    phase a each p {
        do deal()
        do score(2)
        if pot >= 6 { end game }
    }
}
"""


def test_a_routine_of_nobody_names_no_player_and_its_choices_name_theirs(tmp_path):
    # docs/language.md, `routine`: `deal()` and `score(level: int)` have no acting player, so what
    # they change is printed without one, even when P2's turn runs them; `by` names the chooser.
    (tmp_path / "nobody.lf").write_text(NOBODY)
    (tmp_path / "nobody.toml").write_text('[[Token]]\nname = "T"\nvalue = 1\n')
    engine = Engine.load(tmp_path / "nobody.lf")
    sink = ListSink()
    st = engine.new_game(2, 1, sink=sink)
    assert st.pending["player"] == 0 and st.pending["prompt"] == "bonus"
    engine.apply(st, "yes", sink)
    assert st.pending["player"] == 0  # P2's turn: P1 still decides the bonus
    pots = [ev for ev in sink.events if ev["event"] == "counter" and ev["data"]["name"] == "pot"]
    assert [ev["data"]["value"] for ev in pots] == [1, 3, 4, 6] and all(ev["player"] is None for ev in pots)
    turns = [ev["player"] for ev in sink.events if ev["event"] == "turn"]
    assert turns == ["P1", "P2"]
    from interpreter.tools.trace import render
    assert render(pots[2], full_state=False) == ["    pot = 4 (was 3)"]


TOGETHER = """
game "Together" { players 2..4 cards "nobody.toml" }
kind Token { value: int }
param ending = 0 from 0..3
counter pot = 0
round {
    phase a each p {
        set pot += 1
        if pot >= 3 {
            if ending == 0 { win players "the team made it" }
            if ending == 1 { lose players "the team ran out of time" }
            if ending == 2 { win players where it != player(2) "odd seats together" }
            lose [player(1)] "P1 alone"
        }
    }
}
"""


@pytest.mark.parametrize("ending, winners, loser", [(0, ["P1", "P2", "P3"], None), (1, [], None),
                                                    (2, ["P1", "P3"], None), (3, ["P2", "P3"], "P1")])
def test_players_win_or_lose_together(tmp_path, ending, winners, loser):
    # docs/language.md, `win`: a list of players wins (or loses) together; `players` is everyone, a
    # cooperative game's end; a list of one is the player alone.
    (tmp_path / "together.lf").write_text(TOGETHER)
    (tmp_path / "nobody.toml").write_text('[[Token]]\nname = "T"\nvalue = 1\n')
    engine = Engine.load(tmp_path / "together.lf", params={"ending": str(ending)})
    st = engine.new_game(3, 1)
    assert engine.is_over(st)
    assert st.result["winners"] == winners and st.result["loser"] == loser


def test_win_takes_a_player_or_a_list_of_players(tmp_path):
    (tmp_path / "nobody.toml").write_text('[[Token]]\nname = "T"\nvalue = 1\n')
    (tmp_path / "bad.lf").write_text(TOGETHER.replace('win players "the team made it"', 'win 3 "three"'))
    with pytest.raises(LanguageError) as info:
        Engine.load(tmp_path / "bad.lf")
    assert "the winners (a player or a list of players)" in info.value.render()
