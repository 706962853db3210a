"""Information-set Monte Carlo tree search (single observer).

The other players' parts of a `together` (simultaneous choices) are not nodes of the tree: they are
taken at random as they come (lookahead.settle), since none of them knows the bot's part.

Each iteration draws a determinization of the hidden state consistent with the bot's view, walks
one shared tree whose edges are option ids (stable across determinizations, see `engine.Option`),
choosing by UCT among the options legal in that determinization (each child counts how often it was
available, as in ISMCTS, on values normalised to the range seen in the search), adds one node, plays
on with a random policy for at most `depth` decisions (none by default), finishes the move of the
player who chose the new edge by one-step lookahead (lookahead.py, at most `follow` decisions), and
scores the end with the evaluation (evaluation.py): the game's returns when it is over, the
utilities otherwise. Every node keeps the total utility of the player who chose the edge into it.
Random events are drawn by a `Sampler` seeded from the bot's generator, never the game's, so with a
budget in iterations the bot is deterministic for its seed.

A decision whose worth shows only later in the round is searched otherwise (`horizon`): when a later
phase of the round gives every player a turn (drawing first and acting after, say), the bot's move
now is judged by what it lets the player do then. Each option is played on `samples` shared
determinizations, with the same random events for every option (common random numbers): the
option, the rest of the move by one-step lookahead, then every player's moves by the greedy rule
(lookahead.py) until the player's move in that later phase is over; the option with the best mean
utility is chosen. Such a rollout costs as much as a few dozen tree iterations, so the budget there
is counted in samples, not iterations. In such a ruleset the tree of the other decisions covers the
player's own move only (its leaves all end that move, so they are compared at one point of the
round), and the same horizon is not applied inside it.
"""
from __future__ import annotations

import math
import random
import time

from ..core.chance import Sampler
from ..engine import GameError
from .evaluation import Evaluation
from .lookahead import after, finish_move, settle, where


class _Node:
    __slots__ = ("children", "visits", "total", "available")

    def __init__(self):
        self.children: dict = {}
        self.visits = 0
        self.total = 0.0
        self.available = 1


class MctsBot:
    """ISMCTS over option ids; see the module's description. Parameters: `iterations` per decision,
    `ms` per decision (a time budget instead, when above 0), `c` the UCT exploration constant,
    `depth` the most decisions a rollout plays before it is scored, `follow` the own decisions a
    rollout finishes by lookahead, `horizon` 1 to judge a move by the player's next move in the round
    when a later phase gives one (0: never), `samples` the determinizations each option is then
    played on."""

    name = "mcts"
    uses_view = True
    bot = True  # takes a single option without its view (agents.decide)

    def __init__(self, engine, seat: int, seed: int, iterations: int = 200, ms: int = 0, c: float = 0.7,
                 depth: int = 0, follow: int = 4, horizon: int = 1, samples: int = 2, learned: int = 1, model=None,
                 prior: int = 0):
        self.engine = engine
        self.seat = seat
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.ms = ms
        self.c = c
        self.depth = depth
        self.follow = follow
        self.horizon = horizon
        self.samples = samples
        self.prior = prior
        self.evaluation = Evaluation(engine, learned, model)
        self.last_iterations = 0
        phases = engine.model.round.phases
        # Per phase: does a later phase of the round give every player a turn?
        self.turns_later = [any(ph.mode in ("each", "turns") for ph in phases[i + 1:]) for i in range(len(phases))]
        # Where moves are judged through a later phase, the tree covers the player's own move only.
        self.own_move = bool(horizon) and any(self.turns_later)
        self.root_at = None

    def choose(self, options: list, view):
        """The chosen option: the most visited at the root (ties: the first in the options' order)."""
        if len(options) == 1:
            return options[0]
        phase = view.data["phase_index"]
        if self.horizon and 0 <= phase < len(self.turns_later) and self.turns_later[phase]:
            return self._sampled(options, view)
        root = _Node()
        self.low, self.high = 1.0, 0.0  # the range of the utilities backed up in this search
        deadline = time.perf_counter() + self.ms / 1000 if self.ms > 0 else None
        done = 0
        while True:
            if deadline is None:
                if done >= self.iterations:
                    break
            elif done > 0 and time.perf_counter() >= deadline:
                break
            if done == 0 and self.prior:
                self._seed(root, options, view)
            self._iterate(root, view)
            done += 1
        self.last_iterations = done
        best = max(options, key=lambda o: (root.children[o.id].visits if o.id in root.children else -1,
                                           -o.index))
        return best

    def _sampled(self, options: list, view):
        """The option whose rollouts through the player's next move in the round have the best mean
        utility, over `samples` determinizations shared by every option (see the module's
        description); equal means: the bot's generator decides."""
        engine, rng = self.engine, self.rng
        deadline = time.perf_counter() + self.ms / 1000 if self.ms > 0 else None
        totals = [0.0] * len(options)
        done = 0
        while done < self.samples if deadline is None else done == 0 or time.perf_counter() < deadline:
            base = engine.determinize(view, rng)
            self.evaluation.anchor(base)
            luck = rng.getrandbits(64)
            for j, o in enumerate(options):
                totals[j] += after(engine, self.evaluation, base, o.index, self.seat, luck, self.follow, through=True)
            done += 1
        self.last_iterations = done
        best = max(totals)
        chosen = [o for o, t in zip(options, totals) if t >= best - 1e-9]
        return chosen[rng.randrange(len(chosen))]

    def _seed(self, root: _Node, options: list, view) -> None:
        """The prior: every option at the root is scored once as the greedy bot scores it (the option
        and the rest of the move by one-step lookahead, on one determinization) and starts with
        `prior` visits of that score, so the search begins where greedy would play and spends its
        iterations on whether another option is better."""
        engine = self.engine
        base = engine.determinize(view, self.rng)
        self.evaluation.anchor(base)
        self.root_at = where(base)
        luck = self.rng.getrandbits(64)
        for o in options:
            score = after(engine, self.evaluation, base, o.index, self.seat, luck, self.follow)
            child = root.children[o.id] = _Node()
            child.visits = self.prior
            child.total = score * self.prior
            self.low, self.high = min(self.low, score), max(self.high, score)

    def _iterate(self, root: _Node, view) -> None:
        engine, rng = self.engine, self.rng
        st = engine.determinize(view, rng)
        if not root.children:  # the first iteration: a single player is judged from here
            self.evaluation.anchor(st)
        chance = Sampler(rng.getrandbits(64))
        node, path = root, []  # path: (node, the seat that chose the edge into it)
        at = None  # where the game was before the new node's edge
        if not root.children:
            self.root_at = where(st)
        own, root_at, seat = self.own_move, self.root_at, self.seat
        try:
            while st.result is None:
                # The others' parts of a `together` are not known to whoever chooses theirs: taken
                # at random, outside the tree (see lookahead.settle).
                if engine.together(st) and engine.current_player(st) != seat:
                    settle(engine, st, seat, chance, rng.getrandbits(64))
                    continue
                if own and (engine.current_player(st) != seat or where(st) != root_at):
                    break  # the player's move is over: a leaf, scored as it stands
                options = engine.options(st)
                mover = engine.current_player(st)
                children = node.children
                untried = [o for o in options if o.id not in children]
                if untried:
                    option = untried[rng.randrange(len(untried))]
                    for o in options:
                        if o.id in children:
                            children[o.id].available += 1
                    child = children[option.id] = _Node()
                    path.append((child, mover))
                    at = where(st)
                    engine.apply(st, option.index, chance=chance)
                    break
                c, best, best_score = self.c, None, -math.inf
                low, spread = self.low, self.high - self.low
                for o in options:
                    ch = children[o.id]
                    ch.available += 1
                    mean = ch.total / ch.visits
                    if spread > 1e-9:
                        mean = (mean - low) / spread
                    score = mean + c * math.sqrt(math.log(ch.available) / ch.visits)
                    if score > best_score:
                        best, best_score = o, score
                node = children[best.id]
                path.append((node, mover))
                engine.apply(st, best.index, chance=chance)
            for _ in range(self.depth):
                if st.result is not None:
                    break
                n = engine.option_count(st)
                engine.apply(st, rng.randrange(n), chance=chance)
            if at is not None and self.follow:
                finish_move(engine, self.evaluation, st, path[-1][1], self.follow, chance, rng.getrandbits(64), at)
            utilities = self.evaluation.utilities(st)
        except GameError:
            # A limit reached (or a rule failing) inside the search: score what the state shows.
            try:
                utilities = self.evaluation.utilities(st)
            except GameError:
                utilities = [0.5] * st.player_count
        for u in utilities:
            if u < self.low:
                self.low = u
            if u > self.high:
                self.high = u
        for node, mover in path:
            node.visits += 1
            node.total += utilities[mover]
