"""A PettingZoo AEC environment for any ruleset: one agent per seat, `P1`, `P2`, ...

    env = RulesetAECEnv("rulesets/duel.lf", players=2)
    env.reset(seed=3)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

An observation is a dict: `observation`, the agent's view as a vector (encoding.py), and
`action_mask`, 1 at the index of every option of the pending decision when it is the agent's.
An action is an option's index; an index outside the mask is refused (ValueError). The game's
chance steps are the engine's own, seeded by `reset(seed=...)`: the same seed and actions give the
same game. The episode ends when the game does (`terminations`), or is cut after `max_decisions`
decisions (`truncations`), with rewards from the result (+1 winners, -1 the others if anyone won).
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine import Engine
from .encoding import LIMIT, ObservationEncoder

MAX_OPTIONS = 512


def state_text(engine, st) -> str:
    """A game in one line: the round, and the pending decision with its options, or the winners."""
    if st is None:
        return ""
    if st.result is not None:
        return f"round {st.round}: over, winners {', '.join(st.result['winners']) or 'none'}"
    d = engine.decision(st)
    return f"round {st.round}, {st.phase}: P{d.player + 1} {d.prompt}: {', '.join(d.options)}"


class RulesetAECEnv(AECEnv):
    """Every seat of a game of `ruleset` as an agent of a PettingZoo AEC environment."""

    metadata = {"name": "lfdsl_ruleset_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, ruleset, players: int | None = None, cards=None, params: dict | None = None,
                 max_options: int = MAX_OPTIONS, max_decisions: int = 100_000, render_mode: str | None = None):
        super().__init__()
        self.engine = ruleset if isinstance(ruleset, Engine) else Engine.load(ruleset, cards, params)
        game = self.engine.model.game
        self.players = players if players is not None else game.default_players
        self.encoder = ObservationEncoder(self.engine, self.players)
        self.max_options = max_options
        self.max_decisions = max_decisions
        self.render_mode = render_mode
        self.possible_agents = [f"P{s + 1}" for s in range(self.players)]
        self.agents = list(self.possible_agents)
        obs = spaces.Box(-LIMIT, LIMIT, (self.encoder.size,), np.float32)
        mask = spaces.Box(0, 1, (max_options,), np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": obs, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(max_options) for a in self.possible_agents}
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---- the AEC protocol ---------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game (seed 0 if none is given)."""
        self.state = self.engine.new_game(self.players, 0 if seed is None else int(seed))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.decisions = 0
        self._settle()

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        view = self.engine.view(self.state, seat)
        return {"observation": self.encoder.encode(view), "action_mask": self._mask(seat)}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = self._mask(self.possible_agents.index(agent))
        if action is None or not 0 <= int(action) < self.max_options or not mask[int(action)]:
            raise ValueError(f"{agent}: action {action!r} is not one of the pending decision's options "
                             f"(0 to {int(mask.sum()) - 1})")
        self._cumulative_rewards[agent] = 0.0
        self.engine.apply(self.state, int(action))
        self.decisions += 1
        self._settle()
        self._accumulate_rewards()

    def render(self):
        """The game as text: the round, the phase and the pending decision's options."""
        return state_text(self.engine, self.state)

    def close(self):
        pass

    # ---- helpers ------------------------------------------------------------------------------
    def _mask(self, seat: int) -> np.ndarray:
        mask = np.zeros(self.max_options, dtype=np.int8)
        count = self.engine.option_count(self.state)
        if self.engine.current_player(self.state) == seat and not self.terminations[self.possible_agents[seat]]:
            if count > self.max_options:
                raise ValueError(f"a decision with {count} options, more than max_options="
                                 f"{self.max_options}: make the environment with a larger max_options")
            mask[:count] = 1
        return mask

    def _settle(self):
        """Point `agent_selection` at the seat to decide, or end the episode with its rewards."""
        st = self.state
        if st.result is not None or self.decisions >= self.max_decisions:
            over = st.result is not None
            winners = set(st.result["winners"]) if over else set()
            for a in self.agents:
                self.rewards[a] = (1.0 if a in winners else -1.0) if winners else 0.0
                self.terminations[a] = over
                self.truncations[a] = not over
            # Every agent is then stepped once with None, in seat order, as PettingZoo expects.
            self.agent_selection = self.agents[0]
            return
        for a in self.agents:
            self.rewards[a] = 0.0
        self.agent_selection = self.possible_agents[self.engine.current_player(st)]
