"""Chance, made explicit: every random event of a game, and the sources that decide its outcome.

A rule draws at random in two ways only: a shuffle (`shuffle`, or a draw that refills a pile) and a
random pick (`random(...)`). Each is a `ChanceEvent` with its outcomes: a pick has `size` outcomes,
equally likely, numbered from 0; a shuffle of `size` cards has `size`! orderings, equally likely,
each given as a permutation (position i of the new order holds the card that was at `perm[i]`).

By default the game's own seeded generator, kept in its state, decides every outcome, and traces are
the same byte for byte. A program (a bot planning ahead, a test) may pass a chance source with any
call of the decision API; that source then decides the outcomes of that call instead, and the
state's generator is not advanced. A source is any callable `source(event, state)` returning a
pick's index or a shuffle's permutation. Three are given here: `Sampler` draws from its own
generator, `Scripted` plays outcomes given in advance (to enumerate a pick's outcomes one by one),
and `Recorder` lets another source decide and keeps each event with its outcome.
"""
from __future__ import annotations

import math
import random

import attrs


@attrs.frozen
class ChanceEvent:
    """One random event: `kind` is "pick" or "shuffle"; `size` the number of choices or of cards."""

    kind: str
    size: int
    zone: str | None = None  # the shuffled zone

    def outcome_count(self) -> int:
        """How many outcomes the event has, all equally likely."""
        return self.size if self.kind == "pick" else math.factorial(self.size)

    def outcomes(self) -> list[tuple[int, float]]:
        """Every outcome of a pick with its probability; a shuffle's orderings are only sampled."""
        if self.kind != "pick":
            raise ValueError(f"a shuffle of {self.size} cards has {self.outcome_count():,} orderings: "
                             "sample them with a Sampler")
        return [(i, 1.0 / self.size) for i in range(self.size)]


class ChanceError(ValueError):
    """A chance source answered something that is not an outcome of the event: the caller's fault."""


def checked(event: ChanceEvent, outcome):
    """A source's outcome, refused (ValueError) unless it is a possible outcome of `event`."""
    if event.kind == "pick":
        if type(outcome) is not int or not 0 <= outcome < event.size:
            raise ChanceError(f"a chance source answered {outcome!r} to a pick among {event.size}")
        return outcome
    perm = list(outcome)
    if sorted(perm) != list(range(event.size)):
        raise ChanceError(f"a chance source answered {outcome!r}, not an ordering of {event.size} cards")
    return perm


class Sampler:
    """Outcomes drawn uniformly from a generator of its own, seeded: never the game's."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def __call__(self, event: ChanceEvent, state):
        if event.kind == "pick":
            return self.rng.randrange(event.size)
        perm = list(range(event.size))
        self.rng.shuffle(perm)
        return perm


class Scripted:
    """The outcomes given, in order; after them, `then` decides (an error if there is none)."""

    def __init__(self, outcomes, then=None):
        self.outcomes = list(outcomes)
        self.then = then

    def __call__(self, event: ChanceEvent, state):
        if self.outcomes:
            return self.outcomes.pop(0)
        if self.then is None:
            raise ChanceError(f"no scripted outcome left for a {event.kind} of {event.size}")
        return self.then(event, state)


class Recorder:
    """Lets `source` decide and keeps `(event, outcome)` for every random event, in order."""

    def __init__(self, source):
        self.source = source
        self.events: list[tuple[ChanceEvent, object]] = []

    def __call__(self, event: ChanceEvent, state):
        outcome = self.source(event, state)
        self.events.append((event, outcome))
        return outcome
