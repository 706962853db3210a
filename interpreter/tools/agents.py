"""Agents: anything that picks one of the pending decision's options (engine.Option).

The protocol is `choose(options, view) -> Option`: an agent sees its player's `View` (view.py),
never the game state. An agent whose class sets `uses_view = False` is given None instead, so that
agents that ignore the view do not pay for building it."""
from __future__ import annotations

import random

from rulesdsl.errors import count_of

from ..bots import make_bot, parse_agents


class FirstAgent:
    """Always takes the first legal option: a fully predictable opponent for tests."""

    name = "first"
    uses_view = False

    def choose(self, options: list, view):
        """The chosen option."""
        return options[0]


class RandomAgent:
    """Uniform choice among legal options, from its own seeded generator (never the game's)."""

    name = "random"
    uses_view = False

    def __init__(self, seed: int, seat: int):
        self.rng = random.Random(seed * 1_000_003 + seat)

    def choose(self, options: list, view):
        """The chosen option."""
        return options[self.rng.randrange(len(options))]


AGENTS = {"first": lambda seed, seat: FirstAgent(), "random": RandomAgent}


def make_agents(spec: str, players: int, seed: int, engine=None, option: str = "--agents") -> list:
    """One agent for every seat, or one per seat separated by commas: `random`, `first`, `greedy`,
    `mcts` with parameters (`mcts:iterations=400,c=0.7`). The bots need the `engine`. A mistake in
    the text is a positioned `bots.AgentSpecError`; a count that does not match is a ValueError."""
    specs = parse_agents(spec, option)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise ValueError(f"{count_of(len(specs), 'agent')} for {count_of(players, 'player')}")
    out = []
    for seat, s in enumerate(specs):
        if s.name == "human":
            raise ValueError("`human` is a person at the table: play with `lfdsl play`, or give a bot here")
        if s.name in AGENTS:
            out.append(AGENTS[s.name](seed, seat))
        elif engine is None:
            raise ValueError(f"agent `{s.name}` needs the engine: pass it to make_agents")
        else:
            out.append(make_bot(s, engine, seat, seed))
    return out


def decide(engine, state, agent, options=None):
    """The option `agent` takes at the pending decision (whose `options` the caller may have listed
    already), shown its player's view if it uses one."""
    who = engine.current_player(state)
    options = engine.options(state) if options is None else options
    # A bot takes the one option there is without looking: the view, the dearest part of a cheap
    # decision, is not built for it.
    looks = getattr(agent, "uses_view", True) and (len(options) > 1 or not getattr(agent, "bot", False))
    return agent.choose(options, engine.view(state, who) if looks else None)


def play(engine, state, agents, sink=None, max_decisions: int | None = None):
    """Drive a game to its end with one agent per seat."""
    count = 0
    while not engine.is_over(state):
        engine.apply(state, decide(engine, state, agents[engine.current_player(state)]), sink)
        count += 1
        if max_decisions is not None and count >= max_decisions:
            break
    return state
