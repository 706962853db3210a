"""One-step lookahead on the evaluation, shared by the bots: score an option by the utility of the
game after it, follow a player's own next decisions with that rule ("finish the move"), and play
every player's moves by the greedy rule until a player's next move in the round is over
("play through the next move").

The other players' parts of a `together` (simultaneous choices) are taken at random, whoever the
player judging is (`settle`): they are made without knowing each other, so judging one's own part
by the others' best replies to it would credit them with what they cannot know, and seats that
choose later would be judged otherwise than seats that choose first.

Following a move keeps the copy the best option was scored on and goes on from it (`Engine.assign`)
rather than playing that option again, and the score of the last option followed is the score of
the move: a followed decision costs its options' copies and no more."""
from __future__ import annotations

import random

from ..core.chance import Sampler
from ..engine import GameError


def after(engine, evaluation, st, index: int, seat: int, luck: int, follow: int = 0, through: bool = False) -> float:
    """`seat`'s utility after option `index` of `st` and, when `follow` > 0, the rest of `seat`'s
    move (`finish_move`), and with `through` the moves up to the end of its next one in the round
    (`play_through_next_move`), on a copy, its random events drawn from `luck`; -1 when the rules fail."""
    return _scored(engine, evaluation, st, index, seat, luck, follow, through)[1]


def _scored(engine, evaluation, st, index: int, seat: int, luck: int, follow: int = 0, through: bool = False):
    """(the copy played on, `after`'s score); the copy is None when the rules fail."""
    copy = engine.clone(st)
    chance = Sampler(luck)
    try:
        engine.apply(copy, index, chance=chance)
        settle(engine, copy, seat, chance, luck + 3)
        score = finish_move(engine, evaluation, copy, seat, follow, chance, luck + 1, where(st))
        if through:
            play_through_next_move(engine, evaluation, copy, seat, where(st), follow, chance, luck + 2)
            score = None
        if score is None:
            score = evaluation.utilities(copy)[seat]
        return copy, score
    except GameError:
        return None, -1.0


def settle(engine, st, seat: int, chance, luck: int) -> None:
    """While another player than `seat` has a part of a `together` to choose, take one of its
    options uniformly at random (from `luck`), in place on `st`; random events drawn by `chance`."""
    rng = None
    while st.result is None and engine.together(st) and engine.current_player(st) != seat:
        rng = rng or random.Random(luck)
        engine.apply(st, rng.randrange(engine.option_count(st)), chance=chance)


def best_next(engine, evaluation, st, luck: int, follow: int = 0) -> int:
    """The index of the pending option whose result is best for the player to decide, each option
    followed by at most `follow` more of that player's decisions (the greedy bot's rule); the first
    of equal ones."""
    return _best(engine, evaluation, st, luck, follow)[0]


def _best(engine, evaluation, st, luck: int, follow: int = 0):
    """(`best_next`'s index, the copy it was scored on or None, its score or None when there was a
    single option, which is not scored)."""
    n = engine.option_count(st)
    if n == 1:
        return 0, None, None
    seat = engine.current_player(st)
    best = (0, None, None)
    for i in range(n):
        copy, score = _scored(engine, evaluation, st, i, seat, luck, follow)
        if best[2] is None or score > best[2]:
            best = (i, copy, score)
    return best


def where(st) -> tuple:
    """The hand (in a game played in hands), round and phase a game is in: a move does not run
    past them."""
    return st.round, st.phase_index, st.hand


def finish_move(engine, evaluation, st, seat: int, follow: int, chance, luck: int, at: tuple) -> float | None:
    """While `seat` is still the one to decide and the game is still in the round and phase `at`
    (`where` the game was before the move), at most `follow` times, take the best next option by
    one-step lookahead (in place, on `st`, its random events drawn by `chance`). The phase bounds a
    move where one player decides everything (a game of one player). Returns `seat`'s utility of
    the game reached when the last option taken was scored, None when it was not."""
    score = None
    while follow > 0 and st.result is None and engine.current_player(st) == seat and where(st) == at:
        index, copy, score = _best(engine, evaluation, st, luck)
        if copy is None:
            engine.apply(st, index, chance=chance)
        else:
            engine.assign(st, copy)
        follow -= 1
    return score


def play_through_next_move(engine, evaluation, st, seat: int, at: tuple, follow: int, chance, luck: int,
                           cap: int = 200) -> None:
    """After `seat`'s move taken in round and phase `at` is over, play on, in place on `st`, every
    player taking the option the greedy rule gives (`best_next` with `follow`), until `seat` has made
    its next move in a later phase of the same round and that move is over; or until the round or
    the game ends first, or after `cap` decisions. The random events are drawn by `chance`."""
    round_number, hand, next_at, steps = at[0], at[2], None, 0
    while st.result is None and steps < cap and st.round == round_number and st.hand == hand:
        who = engine.current_player(st)
        now = where(st)
        if who == seat and now != at:
            if next_at is None:
                next_at = now
            elif now != next_at:
                break
        elif who != seat and next_at is not None:
            break
        if who != seat and engine.together(st):
            settle(engine, st, seat, chance, luck + steps)
        else:
            engine.apply(st, best_next(engine, evaluation, st, luck + steps, follow), chance=chance)
        steps += 1
