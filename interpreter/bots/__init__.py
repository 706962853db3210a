"""Bots that play any ruleset from what their player may see: `greedy` and `mcts`.

They stand above the engine: they import it, it never imports them. A bot has
`choose(options, view) -> Option`, where `options` are the engine's options for the pending decision
and `view` what the bot's player sees (`Engine.view`); it plans on determinizations of that view, with
random generators of its own. See docs/agents.md.
"""
from __future__ import annotations

from .evaluation import Evaluation
from .greedy import GreedyBot
from .mcts import MctsBot
from .spec import PARAMETERS, AgentSpec, AgentSpecError, parse_agents

BOTS = {"greedy": GreedyBot, "mcts": MctsBot}

__all__ = ["AgentSpec", "AgentSpecError", "BOTS", "Evaluation", "GreedyBot", "MctsBot", "PARAMETERS",
           "make_bot", "parse_agents"]


def make_bot(spec: AgentSpec, engine, seat: int, seed: int):
    """The bot `spec` names, for `seat`, its generator seeded from the game's seed and the seat."""
    return BOTS[spec.name](engine, seat, (seed * 1_000_003 + seat) ^ 0x5EED_B075, **spec.params)
