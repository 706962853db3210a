"""The learning environments (interpreter/env): PettingZoo's and Gymnasium's own checkers on every
ruleset, random agents playing whole episodes, determinism, and observations that hold only what
the player sees."""
from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from interpreter.engine import Engine
from interpreter.env import ObservationEncoder, RulesetAECEnv, RulesetGymEnv

from .conftest import ROOT

RULESETS = [("base", 2), ("base", 4), ("kodama", 3), ("solo", 1), ("duel", 2), ("dartmoor", 2), ("dartmoor", 5)]


def path(name):
    return ROOT / "rulesets" / f"{name}.lf"


# api_test's advice, not failures: a dict observation with an action mask (PettingZoo's own classic
# games do the same) and seats named as the engine names them (P1, P2) rather than player_0.
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array", "ignore:Observation space for each agent",
                            "ignore:We recommend agents to be named")
@pytest.mark.parametrize("name,players", RULESETS, ids=[f"{n}-{p}p" for n, p in RULESETS])
def test_pettingzoo_api_test_and_gymnasium_check_env_pass(name, players):
    api_test(RulesetAECEnv(path(name), players=players), num_cycles=300, verbose_progress=False)
    check_env(RulesetGymEnv(path(name), players=players), skip_render_check=True)


def random_episode(env, seed, rng):
    env.reset(seed=seed)
    seen, ended = [], {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            ended[agent] = reward
            env.step(None)
            continue
        assert obs["observation"].shape == (env.encoder.size,)
        seen.append(obs["observation"].sum())
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return ended, seen


def test_a_random_agent_plays_30_episodes_of_duel():
    env = RulesetAECEnv(path("duel"))
    rng = np.random.default_rng(0)
    wins = 0
    for seed in range(30):
        ended, _ = random_episode(env, seed, rng)
        assert sorted(ended) == ["P1", "P2"] and sorted(ended.values()) == [-1.0, 1.0]
        wins += ended["P1"] == 1.0
    # seat 1 against seat 2, both random: 18 here; outside 6..24 has a chance below 1% for seats
    # winning 40% to 60% of games, and a seat that always wins or always loses is far outside
    assert 6 <= wins <= 24


def test_the_same_seed_and_actions_give_the_same_episode():
    a = random_episode(RulesetAECEnv(path("dartmoor"), players=3), 5, np.random.default_rng(1))
    b = random_episode(RulesetAECEnv(path("dartmoor"), players=3), 5, np.random.default_rng(1))
    assert a == b


def test_an_option_outside_the_mask_is_refused_or_wrapped():
    env = RulesetAECEnv(path("duel"))
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    with pytest.raises(ValueError, match="is not one of the pending decision's options"):
        env.step(int(obs["action_mask"].sum()))
    gym_env = RulesetGymEnv(path("duel"))
    _, info = gym_env.reset(seed=1)
    _, _, _, _, info = gym_env.step(int(info["action_mask"].sum()) + 3)
    assert info["illegal"] is True


def test_the_observation_holds_only_what_the_player_sees():
    engine = Engine.load(path("base"))
    enc = ObservationEncoder(engine, 2)
    st = engine.new_game(2, 3)
    other = st.clone()
    hand = other.zones["P2.deck"]
    # Two different cards of P2's face-down deck exchange what they are: P1 cannot tell.
    i, j = next((i, j) for i in range(len(hand)) for j in range(len(hand))
                if other.card_def[hand[i]] != other.card_def[hand[j]])
    other.card_def[hand[i]], other.card_def[hand[j]] = other.card_def[hand[j]], other.card_def[hand[i]]
    assert np.array_equal(enc.encode(engine.view(st, 0)), enc.encode(engine.view(other, 0)))
    # The same exchange between a card P1 sees and one of P1's deck changes P1's observation.
    shown = st.clone()
    seen = next(c for c in shown.zones["reserve1"] if shown.card_def[c] != shown.card_def[shown.zones["P1.deck"][0]])
    hidden = shown.zones["P1.deck"][0]
    shown.card_def[seen], shown.card_def[hidden] = shown.card_def[hidden], shown.card_def[seen]
    assert not np.array_equal(enc.encode(engine.view(st, 0)), enc.encode(engine.view(shown, 0)))


def test_the_layout_is_labelled_and_seats_are_relative():
    engine = Engine.load(path("base"))
    enc = ObservationEncoder(engine, 2)
    labels = [label for label, _, _ in enc.layout]
    assert labels[0] == "game: round" and any(label.startswith("zone deck (seat +1)") for label in labels)
    assert sum(size for _, _, size in enc.layout) == enc.size
    st = engine.new_game(2, 3)
    mine, theirs = enc.encode(engine.view(st, 0)), enc.encode(engine.view(st, 1))
    at = next(off for label, off, _ in enc.layout if label == "game: pending decision's seat")
    decider = st.pending["player"]
    assert mine[at + (decider - 0) % 2] == 1 and theirs[at + (decider - 1) % 2] == 1


def test_the_random_agent_loop_of_docs_agents_md_runs():
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    block = text.split("A random agent, ten lines:\n\n```python\n", 1)[1].split("```", 1)[0]
    assert len(block.strip().splitlines()) <= 10
    scope = {}
    exec(compile(block, "docs/agents.md", "exec"), scope)  # the documentation's own example
    assert scope["env"].state.result is not None
