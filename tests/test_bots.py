"""The bots (interpreter/bots): agent specifications, the evaluation, greedy and MCTS, tournaments,
and the bot's failure reported by `lfdsl run`. Budgets are small; strength and speed are measured
by benchmarks/bots.py."""
from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from interpreter.tools.agents import make_agents, play
from interpreter.bots import AgentSpecError, Evaluation, parse_agents
from interpreter.tools.cli import main
from interpreter.engine import Engine
from interpreter.lab.figures import interval
from interpreter.lab.tournament import play_pair
from rulesdsl.checker import CheckError
from rulesdsl.layers import load_ruleset
from rulesdsl import unparse

from .conftest import ROOT

SMALL = "mcts:iterations=12,depth=4"


def test_agent_specs_take_parameters_and_seats():
    specs = parse_agents("mcts:iterations=400,c=0.7, random ,greedy")
    assert [(s.name, s.params) for s in specs] == [("mcts", {"iterations": 400, "c": 0.7}), ("random", {}),
                                                   ("greedy", {})]
    assert specs[0].text == "mcts:iterations=400,c=0.7"


@pytest.mark.parametrize("text, col, message", [
    ("mcts:iterations=x", 17, "`iterations` of `mcts` takes a whole number, not `x`"),
    ("random,mcts:c=-1", 15, "`c` of `mcts` takes a number, not `-1`"),
    ("mcts:iteratons=4", 6, "agent `mcts` has no parameter `iteratons`"),
    ("greedy,rando", 8, "unknown agent `rando`"),
    ("depth=3,mcts", 1, "parameter `depth=3` comes before any agent"),
    ("mcts:iterations=0", 17, "`iterations` of `mcts` must be at least 1, not 0"),
    ("mcts:iterations=1000000000", 17, "`iterations` of `mcts` must be at most 100,000, not 1000000000"),
    ("mcts:ms=60001", 9, "`ms` of `mcts` must be at most 60,000, not 60001"),
    ("mcts: depth = 501", 15, "`depth` of `mcts` must be at most 500, not 501"),
    ("random,mcts:samples=65", 21, "`samples` of `mcts` must be at most 64, not 65"),
    ("mcts:c=100.5", 8, "`c` of `mcts` must be at most 100, not 100.5"),
    ("mcts:c=1e999", 8, "`c` of `mcts` takes a number, not `1e999`"),
    ("mcts:c=nan", 8, "`c` of `mcts` takes a number, not `nan`"),
    ("mcts:c=inf", 8, "`c` of `mcts` takes a number, not `inf`"),
    ("mcts:c=" + "9" * 400, 8, f"`c` of `mcts` must be at most 100, not {'9' * 24}... (400 characters)"),
    ("greedy:follow=" + "9" * 5000, 15, f"`follow` of `greedy` must be at most 100, not {'9' * 24}... (5000 characters)"),
    ("mcts:follow=" + "0" * 5000 + "100", 13, None),  # leading zeros: a value of 100, not a long number
    (",".join(["random"] * 17), 113, "a specification names at most 16 agents, one per seat"),
])
def test_a_bad_agent_spec_is_positioned_on_the_option(text, col, message):
    """A value is reported at its own place; a value past its ceiling (docs/agents.md, "Ceilings")
    says the ceiling, and thousands of digits are refused without being converted."""
    if message is None:
        assert parse_agents(text, "--bots")[0].params == {"follow": 100}
        return
    with pytest.raises(AgentSpecError) as info:
        parse_agents(text, "--bots")
    d = info.value.diagnostics[0]
    assert (d.path, d.line, d.col, d.message) == ("--bots", 1, col, message)


def test_a_long_bad_agent_spec_reports_its_first_mistakes_only():
    """A specification read from a file may be megabytes of mistakes: the first twenty are shown."""
    with pytest.raises(AgentSpecError) as info:
        parse_agents("mcts:" + ",".join(["iteratons=4"] * 100_000))
    assert len(info.value.diagnostics) == 20


def test_cli_reports_a_bad_agent_without_a_traceback(capsys):
    assert main(["run", str(ROOT / "rulesets" / "duel.lf"), "--agents", "mcts:iteratons=4,random"]) == 2
    err = capsys.readouterr().err
    assert "--agents:1:6: agent `mcts` has no parameter `iteratons`" in err
    assert "did you mean `iterations`?" in err and "Traceback" not in err


def test_first_that_cannot_finish_is_reported_as_the_bots_failure(capsys):
    assert main(["run", str(ROOT / "rulesets" / "duel.lf"), "--agents", "first", "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "the agent `first` could not finish this game" in err
    assert "the bot's failure, not the rules'" in err and "raise `round_limit`" not in err


def _decisions(engine, players, seed, spec, count):
    """The first `count` option ids the agents chose (after checking each is legal)."""
    st = engine.new_game(players, seed)
    agents = make_agents(spec, players, seed, engine=engine)
    chosen = []
    while not engine.is_over(st) and len(chosen) < count:
        options = engine.options(st)
        who = st.pending["player"]
        option = agents[who].choose(options, engine.view(st, who))
        assert option in options
        chosen.append(option.id)
        engine.apply(st, option)
    return chosen


RULESETS = [("base.lf", 2, None), ("base.lf", 3, None), ("kodama.lf", 2, None), ("solo.lf", 1, None),
            ("duel.lf", 2, None), ("kodama.lf", 3, {"difficulty": "3"})]


@pytest.mark.parametrize("spec", ["greedy", SMALL])
@pytest.mark.parametrize("ruleset, players, params", RULESETS[:5])
def test_bots_choose_legal_options_on_every_ruleset(ruleset, players, params, spec):
    engine = Engine.load(ROOT / "rulesets" / ruleset, params=params)
    assert _decisions(engine, players, 3, spec, 25)  # each one legal (checked as it is chosen)


def test_bots_play_a_variant_that_extends_another_ruleset():
    engine = Engine.load(ROOT / "tests" / "rulesets" / "layers" / "child.lf")
    players = engine.model.game.default_players
    assert _decisions(engine, players, 2, f"{SMALL},greedy" if players == 2 else SMALL, 15)


@pytest.mark.parametrize("spec", ["greedy", SMALL])
def test_bots_are_deterministic_for_a_seed(spec):
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    first = _decisions(engine, 2, 5, spec, 30)
    assert first == _decisions(engine, 2, 5, spec, 30)


def test_mcts_does_not_touch_the_game_it_is_shown():
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    st = engine.new_game(2, 4)
    before = st.to_json()
    bot = make_agents(SMALL, 2, 4, engine=engine)[st.pending["player"]]
    bot.choose(engine.options(st), engine.view(st, st.pending["player"]))
    assert st.to_json() == before


def test_mcts_beats_random_on_duel():
    # 12 games, seats alternated, a small budget: mcts won every one while this test was written;
    # 9 of 12 leaves a margin that a bot playing no better than random (expected 6) reaches with
    # probability below 8%, and a correct mcts misses far more rarely.
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    result = play_pair(engine, "mcts:iterations=40,depth=8", "random", 12, seed=100)
    assert result.a_wins >= 9, result


def test_default_evaluation_reads_the_victory_thresholds():
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    ev = Evaluation(engine)
    assert len(ev.thresholds) == 3
    st = engine.new_game(2, 1)
    assert ev.utilities(st) == [0.5, 0.5]
    play(engine, st, make_agents("random", 2, 1))
    u = ev.utilities(st)
    assert sorted(u) == [0.0, 1.0] and u == engine.returns(st)


def test_an_evaluate_block_is_checked_unparsed_and_used(tmp_path):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    source = (ROOT / "tests" / "rulesets" / "race.lf").read_text()
    good = tmp_path / "good.lf"
    good.write_text(source + "\nevaluate for p {\n    score twice = 2 * p.score\n    rank by twice + 1\n}\n")
    engine = Engine.load(good)
    st = engine.new_game(2, 1)
    ev = Evaluation(engine)
    assert ev.standings(st) == [1.0, 1.0]
    printed = unparse.program(load_ruleset(good).items)
    assert "evaluate for p {\n    score twice = 2 * p.score\n    rank by twice + 1\n}" in printed
    bad = tmp_path / "bad.lf"
    bad.write_text(source + "\nevaluate for p {\n    rank by p.score > 1\n}\n")
    with pytest.raises(CheckError) as info:
        Engine.load(bad)
    assert "the evaluation" in str(info.value)


def test_wilson_interval():
    low, high = interval(90, 100)
    assert round(low, 3) == 0.826 and round(high, 3) == 0.945
    assert interval(0, 10)[0] == 0.0 and interval(10, 10)[1] == pytest.approx(1.0)
    assert interval(10.5, 20) == list(proportion_confint(10.5, 20, method="wilson"))  # half wins


def test_tournament_command_prints_a_table_and_json(tmp_path, capsys):
    out = tmp_path / "t.json"
    code = main(["tournament", str(ROOT / "rulesets" / "duel.lf"), "--bots", "greedy,random", "--games", "4",
                 "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "Wilson" in text and "greedy" in text and "random" in text
    pair_lines = [line for line in text.splitlines() if line.split()[:2] in (["greedy", "random"], ["random", "greedy"])]
    assert len(pair_lines) == 1  # one line per pair, from its first bot's side
    import json
    data = json.loads(out.read_text())
    pair = data["pairs"][0]
    assert pair["games"] == 4 and pair["a_wins"] + pair["b_wins"] + pair["shared"] + pair["unfinished"] == 4
    assert main(["tournament", str(ROOT / "rulesets" / "duel.lf"), "--bots", "mcts:c=x,random"]) == 2
    assert "--bots:1:8: `c` of `mcts` takes a number, not `x`" in capsys.readouterr().err


def test_mcts_with_a_time_budget_searches_and_chooses_a_legal_option():
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    st = engine.new_game(2, 6)
    while len(engine.options(st)) < 2:
        engine.apply(st, 0)
    who = st.pending["player"]
    bot = make_agents("mcts:ms=30", 2, 6, engine=engine)[who]
    options = engine.options(st)
    assert bot.choose(options, engine.view(st, who)) in options
    assert bot.last_iterations >= 1


# ---- a bot reads only its player's view -------------------------------------------------------
def _hidden_shuffled(engine, st, player, rng):
    """`st` with every card `player` does not see dealt again at random among the same places:
    the deck orders, the other players' hands, the face-down piles; what `player` sees is kept."""
    from interpreter.core.view import _visibility, seen_in_place
    by_kind: dict = {}
    for key, cards in st.zones.items():
        vis = _visibility(engine.program, key)
        for i, c in enumerate(cards):
            if not seen_in_place(vis, key, player, i == len(cards) - 1) and not st.revealed.get(c, 0) & (1 << player):
                by_kind.setdefault(engine.program.cards.defs[st.card_def[c]].kind, []).append(c)
    out = st.clone()
    for cards in by_kind.values():
        defs = [st.card_def[c] for c in cards]
        rng.shuffle(defs)
        for c, d in zip(cards, defs):
            out.card_def[c] = d
    return out


def _a_hidden_decision(engine, players, seed):
    """A game played at random until its pending player has a choice and does not see some cards
    that differ (so that dealing them again changes the game)."""
    import random
    rng = random.Random(seed)
    st = engine.new_game(players, seed)
    agents = make_agents("random", players, seed)
    while not engine.is_over(st):
        who = st.pending["player"]
        if len(engine.options(st)) > 1 and rng.random() < 0.3:
            other = _hidden_shuffled(engine, st, who, random.Random(seed + 1))
            if other.card_def != st.card_def and engine.view(other, who) == engine.view(st, who):
                return st, other, who
        engine.apply(st, agents[who].choose(engine.options(st), None))
    raise AssertionError("no decision with hidden cards in this game")


@pytest.mark.parametrize("spec", ["greedy", "mcts:iterations=30,depth=6"])
@pytest.mark.parametrize("ruleset, players", [("rulesets/base.lf", 2), ("rulesets/duel.lf", 2),
                                              ("rulesets/kodama.lf", 3), ("rulesets/solo.lf", 1),
                                              ("tests/rulesets/hands.lf", 2)])
def test_a_bot_decides_the_same_whatever_the_cards_its_player_cannot_see(ruleset, players, spec):
    # The deck orders, the face-down piles and the other players' hands are dealt again; for every
    # bot seed the bot makes the same decision in both games, so its distribution of decisions over
    # seeds is the same: it cannot have read a card its player does not see.
    engine = Engine.load(ROOT / ruleset)
    for seed in (1, 2):
        st, other, who = _a_hidden_decision(engine, players, seed)
        decisions = []
        for game in (st, other):
            chosen = []
            for bot_seed in range(6):
                bot = make_agents(spec, players, bot_seed, engine=engine)[who]
                chosen.append(bot.choose(engine.options(game), engine.view(game, who)).id)
            decisions.append(chosen)
        assert decisions[0] == decisions[1]


def test_the_leak_test_would_see_a_bot_that_reads_the_deck():
    # The same comparison with a bot that decides from the real game (its decision a function of
    # the whole state, deck order included): dealing the hidden cards again changes its decisions,
    # so the comparison above can fail.
    import json
    import zlib

    def cheat(game, options):
        return options[zlib.crc32(json.dumps(game.to_json(), sort_keys=True).encode()) % len(options)].id

    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    differ = 0
    for seed in range(1, 7):
        st, other, who = _a_hidden_decision(engine, 2, seed)
        differ += cheat(st, engine.options(st)) != cheat(other, engine.options(other))
    assert differ >= 2


def test_greedy_that_finishes_its_move_ends_base_games_sooner():
    # Scoring right after an option sees "attract" or "plant" as worth nothing until its card or
    # cell is chosen; following the player's own next decisions judges the action by its outcome.
    # Over 10 games each on base 2p the medians were 38.5 rounds without following and 14 with.
    from statistics import median
    engine = Engine.load(ROOT / "rulesets" / "base.lf")

    def rounds(spec, seed):
        st = engine.new_game(2, seed)
        play(engine, st, make_agents(spec, 2, seed, engine=engine))
        return st.round

    plain = [rounds("greedy:follow=0", seed) for seed in (1, 2, 3)]
    finishing = [rounds("greedy", seed) for seed in (1, 2, 3)]
    assert median(finishing) <= 20 < median(plain), (finishing, plain)


def test_following_a_move_stops_where_the_phase_ends():
    # In a game of one player every decision is theirs: without the bound, following "the move"
    # would play on through the round's end. It stops when the phase or the round changes.
    from interpreter.bots.evaluation import Evaluation as Ev
    from interpreter.bots.lookahead import finish_move, where
    from interpreter.core.chance import Sampler
    engine = Engine.load(ROOT / "rulesets" / "solo.lf")
    st = engine.new_game(1, 3)
    at = where(st)
    finish_move(engine, Ev(engine), st, 0, 1000, Sampler(1), 2, at)
    assert st.result is None and st.round == at[0] and st.phase_index == at[1] + 1


def test_a_single_player_is_judged_against_where_the_decision_started():
    # One player has no rival to lead; against an anchor (the standing at the decision), what an
    # option changes is not squashed into the last digits of a utility near 0.9.
    engine = Engine.load(ROOT / "rulesets" / "solo.lf")
    ev = Evaluation(engine)
    st = engine.new_game(1, 3)
    unanchored = ev.utilities(st)[0]
    ev.anchor(st)
    assert ev.utilities(st) == [0.5]
    for option in engine.options(st):
        after = engine.clone(st)
        engine.apply(after, option)
        change = ev.standing(after, 0) - ev.standing(st, 0)
        u = ev.utilities(after)[0]
        assert (u > 0.5) == (change > 0) and (u < 0.5) == (change < 0)
    assert unanchored > 0.85  # the squashed scale the anchor replaces


class _Recording(Engine):
    """An engine that keeps the seat of every decision applied through it."""

    __slots__ = ("seen", "only")

    def __init__(self, program, only=None):
        super().__init__(program)
        self.seen, self.only = [], only

    def apply(self, st, choice, sink=None, chance=None):
        if self.only is None or self.only(st):
            self.seen.append((st.pending["player"], st.phase, st.round))
        return super().apply(st, choice, sink, chance)


def _applied_players(engine, st, spec, seed):
    """The seats whose decisions a bot's search applied while it chose at `st`."""
    who = st.pending["player"]
    rec = _Recording(engine.program)
    bot = make_agents(spec, st.player_count, seed, engine=rec)[who]
    bot.choose(engine.options(st), engine.view(st, who))
    return bot, [p for p, _, _ in rec.seen]


def _first_decision(engine, players, seed, phase, least=2):
    st = engine.new_game(players, seed)
    agents = make_agents("greedy", players, seed, engine=engine)
    while not (st.phase == phase and len(engine.options(st)) >= least):
        engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), engine.view(st, st.pending["player"])))
    return st


def test_mcts_judges_a_draw_through_the_players_next_move_in_the_round():
    # Base: drawing comes before acting in the same round, so a draw-or-stop is played on for
    # `samples` determinizations through the other player's draws and the bot's own actions.
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    st = _first_decision(engine, 2, 3, "guardians")
    bot, seen = _applied_players(engine, st, "mcts:samples=3", 3)
    assert bot.last_iterations == 3
    assert set(seen) == {0, 1}  # the others' moves are played on the way
    plain, _ = _applied_players(engine, st, "mcts:horizon=0,iterations=20", 3)
    assert plain.last_iterations == 20 and not plain.own_move  # without it: the tree, as in Duel


def test_play_through_next_move_stops_when_that_move_is_over():
    from interpreter.bots.evaluation import Evaluation as Ev
    from interpreter.bots.lookahead import play_through_next_move, where
    from interpreter.core.chance import Sampler
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    st = _first_decision(engine, 2, 3, "guardians")
    seat, at = st.pending["player"], where(st)
    engine.apply(st, "stop")
    rec = _Recording(engine.program, only=lambda state: state is st)
    play_through_next_move(rec, Ev(rec), st, seat, at, 4, Sampler(1), 2)
    assert (seat, "actions", at[0]) in rec.seen  # the player's action move was played
    assert all(r == at[0] for _, _, r in rec.seen)
    # ... and over: the round has ended or someone else decides, and never the player's next draw
    assert st.round > at[0] or st.pending["player"] != seat or st.phase != "actions"
    assert st.round == at[0] or st.phase == "guardians"


def test_mcts_tree_covers_its_own_move_where_the_horizon_reaches_a_later_phase():
    # Base actions: every decision the search applies is the bot's own (its move, finished by
    # lookahead). Duel has one phase of turns a round: its tree grows into the other's decisions.
    base = Engine.load(ROOT / "rulesets" / "base.lf")
    st = _first_decision(base, 2, 4, "actions", least=3)
    bot, seen = _applied_players(base, st, "mcts:iterations=40", 4)
    assert bot.own_move and set(seen) == {st.pending["player"]}
    duel = Engine.load(ROOT / "rulesets" / "duel.lf")
    st = _first_decision(duel, 2, 4, "play", least=3)
    bot, seen = _applied_players(duel, st, "mcts:iterations=200", 4)
    assert not bot.own_move and len(set(seen)) == 2


def test_mcts_horizon_is_zero_or_one_and_deterministic_on_base():
    with pytest.raises(AgentSpecError) as info:
        parse_agents("mcts:horizon=2")
    assert info.value.diagnostics[0].message == "`horizon` of `mcts` must be at most 1, not 2"
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    assert _decisions(engine, 2, 5, SMALL, 20) == _decisions(engine, 2, 5, SMALL, 20)


def test_the_ladder_rates_bots_on_the_elo_scale_from_their_pairs():
    from interpreter.lab.tournament import PairResult, ratings
    # a beats b 76 games in 100, b beats c as often: about +200 Elo a step (with the half game each
    # side adds, a little less); a never met c, and is still placed above it by way of b.
    results = [PairResult("a", "b", 100, 76, 24, 0, 0, ()), PairResult("b", "c", 100, 76, 24, 0, 0, ())]
    rates = {r.bot: r for r in ratings(["b", "a", "c"], results)}
    assert rates["b"].elo == 0.0
    assert 180 < rates["a"].elo < 205 and -205 < rates["c"].elo < -180
    assert rates["a"].low < rates["a"].elo < rates["a"].high
    # A pair won 20-0 still has a finite rating.
    swept = ratings(["x", "y"], [PairResult("x", "y", 20, 20, 0, 0, 0, ())])
    assert swept[0].bot == "x" and swept[1].elo < -400 and swept[1].low > -10_000


def test_a_tournament_gives_the_same_results_on_any_number_of_workers(capsys):
    from interpreter.lab.tournament import tournament
    engine = Engine.load(ROOT / "tests" / "rulesets" / "lab" / "harvest.lf")
    bots = ["greedy", "random", "first"]
    one = tournament(engine, bots, 6, 2, seed=4, workers=1)
    two = tournament(engine, bots, 6, 2, seed=4, workers=2)
    assert one == two and [(r.a, r.b) for r in one] == [("greedy", "random"), ("greedy", "first"), ("random", "first")]
    assert main(["tournament", str(ROOT / "tests" / "rulesets" / "lab" / "harvest.lf"), "--bots", "random,first",
                 "--games", "4", "--workers", "2"]) == 0
    out = capsys.readouterr()
    assert "2 workers" in out.out and "Bradley-Terry" in out.out and "reference" in out.out
    assert main(["tournament", str(ROOT / "rulesets" / "duel.lf"), "--bots", "random,random"]) == 2
    assert "a bot is named twice" in capsys.readouterr().err


class _Counting(Engine):
    """An engine that counts the options applied, the copies made and the views built through it."""

    __slots__ = ("applied", "copies", "views", "singles")

    def __init__(self, program):
        super().__init__(program)
        self.applied = self.copies = self.views = self.singles = 0

    def option_count(self, st):
        n = super().option_count(st)
        self.singles += n == 1
        return n

    def apply(self, st, choice, sink=None, chance=None):
        self.applied += 1
        return super().apply(st, choice, sink, chance)

    def clone(self, st):
        self.copies += 1
        return super().clone(st)

    def view(self, st, player):
        self.views += 1
        return super().view(st, player)


def test_a_followed_decision_costs_its_options_copies_and_no_more():
    # Base actions: an action asks which card, and greedy follows that choice. The copy the best
    # card was scored on is kept rather than the card played again: one option applied per copy,
    # but for the decisions of a single option, which are played on without a copy.
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    st = _first_decision(engine, 2, 4, "actions", least=3)
    who = st.pending["player"]
    counting = _Counting(engine.program)
    bot = make_agents("greedy", 2, 4, engine=counting)[who]
    chosen = bot.choose(engine.options(st), engine.view(st, who))
    assert chosen in engine.options(st) and counting.copies > len(engine.options(st))  # some were followed
    assert counting.applied == counting.copies + counting.singles


def test_a_bot_takes_a_single_option_without_building_a_view():
    from interpreter.tools.agents import decide
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    st = engine.new_game(2, 3)
    counting = _Counting(engine.program)
    greedy = make_agents("greedy", 2, 3, engine=counting)
    looked = []
    while not engine.is_over(st) and len(looked) < 40:
        counting.views = 0
        n = len(engine.options(st))
        engine.apply(st, decide(counting, st, greedy[st.pending["player"]]))
        looked.append((n, counting.views))
    assert {v for n, v in looked if n == 1} == {0} and {v for n, v in looked if n > 1} == {1}


PRIOR_RULES = """
game "Gain" { players 2..2 cards "tiny.toml" round_limit 2 }
kind Token { value: int }
counter points = 10 per player
round {
    phase a each p {
        choose n in [0, 1, 2, 3, 4, 5] "points" { set p.points += n }
    }
}
victory for p after a { score s = p.points; win if false; rank by s }
evaluate for p { score s = p.points; rank by s }
"""


def test_mcts_with_a_prior_starts_its_search_where_greedy_would_play(tmp_path):
    # With a prior, every option at the root starts with `prior` visits of its greedy score: one
    # search iteration goes to the best, which stays the most visited. Without it, the one iteration
    # tries one option at random, which is then the most visited.
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "gain.lf").write_text(PRIOR_RULES)
    engine = Engine.load(tmp_path / "gain.lf")
    st = engine.new_game(2, 1)
    chosen = {spec: {make_agents(spec, 2, seed, engine)[0].choose(engine.options(st), engine.view(st, 0)).label
                     for seed in range(8)}
              for spec in ("mcts:iterations=1,prior=5,random", "mcts:iterations=1,random")}
    assert chosen["mcts:iterations=1,prior=5,random"] == {"5"}
    assert len(chosen["mcts:iterations=1,random"]) > 1


def test_mcts_with_a_prior_is_deterministic_for_a_seed():
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    spec = "mcts:iterations=12,prior=3,random"
    assert _decisions(engine, 2, 5, spec, 20) == _decisions(engine, 2, 5, spec, 20)


def test_a_tournament_plays_the_rulesets_own_number_of_players(capsys):
    # For Sale is played by 3 to 6, 4 unless told: a tournament takes the 4.
    assert main(["tournament", str(ROOT / "examples" / "forsale" / "forsale.lf"), "--bots", "random,first",
                 "--games", "2", "--workers", "1"]) == 0
    assert "For Sale: 4 players, 2 games per pair" in capsys.readouterr().out
