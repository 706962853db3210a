"""A single-agent Gymnasium environment: the learner plays one seat, bots play the others.

    env = RulesetGymEnv("rulesets/duel.lf", seat=1, opponents="random")
    obs, info = env.reset(seed=0)
    while True:
        action = env.action_space.sample(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break

The observation is the learner's view as a vector (encoding.py); `info["action_mask"]` marks the
legal option indexes. An index outside them is taken modulo the number of options and reported as
`info["illegal"] = True`, so that any action of the space is defined (as Gymnasium's checker
expects); a learner should sample with the mask. The opponents are agents as `--agents` names them
(`random`, `greedy`, `mcts:iterations=100`...), seeded from the episode's seed, and see their own
views only. The reward is given when the game ends: +1 if the learner won, -1 if another player
did, 0 if nobody did.
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..tools.agents import decide, make_agents
from ..engine import Engine
from .aec import MAX_OPTIONS, state_text
from .encoding import LIMIT, ObservationEncoder


class RulesetGymEnv(gym.Env):
    """One seat of `ruleset` as a Gymnasium environment, the other seats played by bots."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, ruleset, seat: int = 1, players: int | None = None, opponents: str = "random",
                 cards=None, params: dict | None = None, max_options: int = MAX_OPTIONS,
                 max_decisions: int = 100_000, render_mode: str | None = None):
        self.engine = ruleset if isinstance(ruleset, Engine) else Engine.load(ruleset, cards, params)
        game = self.engine.model.game
        self.players = players if players is not None else game.default_players
        if not 1 <= seat <= self.players:
            raise ValueError(f"seat {seat} does not exist: seats are 1 to {self.players}")
        self.seat = seat - 1
        self.opponents = opponents
        self.encoder = ObservationEncoder(self.engine, self.players)
        self.max_options = max_options
        self.max_decisions = max_decisions
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-LIMIT, LIMIT, (self.encoder.size,), np.float32)
        self.action_space = spaces.Discrete(max_options)
        self.state = None
        self.agents = None

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**31 - 1)) if seed is None else int(seed)
        self.state = self.engine.new_game(self.players, game_seed)
        self.agents = make_agents(self.opponents, self.players, game_seed, self.engine)
        self.decisions = 0
        self._others()
        return self._observe(), self._info()

    def step(self, action):
        st = self.state
        illegal = False
        if st.result is None and self.decisions < self.max_decisions:
            count = self.engine.option_count(st)
            index = int(action)
            if not 0 <= index < count:
                illegal, index = True, index % count
            self.engine.apply(st, index)
            self.decisions += 1
            self._others()
        terminated = st.result is not None
        truncated = not terminated and self.decisions >= self.max_decisions
        reward = 0.0
        if terminated and st.result["winners"]:
            reward = 1.0 if f"P{self.seat + 1}" in st.result["winners"] else -1.0
        info = self._info()
        info["illegal"] = illegal
        return self._observe(), reward, terminated, truncated, info

    def render(self):
        """The game as text: the round, the phase and the pending decision's options."""
        return state_text(self.engine, self.state)

    # ---- helpers ------------------------------------------------------------------------------
    def _others(self):
        """Let the bots play until the learner's decision or the end of the game."""
        st = self.state
        engine = self.engine
        while st.result is None and engine.current_player(st) != self.seat and self.decisions < self.max_decisions:
            engine.apply(st, decide(engine, st, self.agents[engine.current_player(st)]))
            self.decisions += 1

    def _observe(self):
        return self.encoder.encode(self.engine.view(self.state, self.seat))

    def _info(self) -> dict:
        mask = np.zeros(self.max_options, dtype=np.int8)
        count = self.engine.option_count(self.state)
        if self.engine.current_player(self.state) == self.seat:
            if count > self.max_options:
                raise ValueError(f"a decision with {count} options, more than max_options="
                                 f"{self.max_options}: make the environment with a larger max_options")
            mask[:count] = 1
        return {"action_mask": mask}
