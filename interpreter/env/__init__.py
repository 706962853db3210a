"""Learning environments for any ruleset: a PettingZoo AEC environment (`RulesetAECEnv`) and a
single-agent Gymnasium environment (`RulesetGymEnv`) whose other seats are played by bots.

Both stand on the engine's public API (`new_game`, `view`, `apply`) and nothing else: an agent
observes its player's view only (encoding.py says how it becomes a vector), acts by the index of an
option of the pending decision, and is told which indexes are legal by an action mask. Rewards
come from the game's result: +1 for a winner, -1 for the others when somebody won, 0 when nobody
did. The packages are the optional extra `lfdsl[rl]`; docs/agents.md shows a random-agent loop.
"""
from __future__ import annotations

from ..tools.extras import install_hint, missing_extra

try:
    from .aec import RulesetAECEnv
    from .encoding import ObservationEncoder
    from .single import RulesetGymEnv
except ModuleNotFoundError as exc:
    if missing_extra(exc.name, "rl") is None:
        raise
    raise ModuleNotFoundError(f"the learning environments need the optional extra `rl` ({exc.name.split('.')[0]} "
                              f"is not installed): {install_hint('rl')}", name=exc.name) from None

__all__ = ["ObservationEncoder", "RulesetAECEnv", "RulesetGymEnv"]
