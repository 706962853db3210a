"""One-step lookahead on the evaluation, shared by the bots: score an option by the utility of the
game after it, follow a player's own next decisions with that rule ("finish the move"), and play
every player's moves by the greedy rule until a player's next move in the round is over
("play through the next move")."""
from __future__ import annotations

from ..core.chance import Sampler
from ..engine import GameError


def after(engine, evaluation, st, index: int, seat: int, luck: int, follow: int = 0, through: bool = False) -> float:
    """`seat`'s utility after option `index` of `st` and, when `follow` > 0, the rest of `seat`'s
    move (`finish_move`), and with `through` the moves up to the end of its next one in the round
    (`play_through_next_move`), on a copy, its random events drawn from `luck`; -1 when the rules fail."""
    copy = engine.clone(st)
    chance = Sampler(luck)
    try:
        engine.apply(copy, index, chance=chance)
        finish_move(engine, evaluation, copy, seat, follow, chance, luck + 1, where(st))
        if through:
            play_through_next_move(engine, evaluation, copy, seat, where(st), follow, chance, luck + 2)
        return evaluation.utilities(copy)[seat]
    except GameError:
        return -1.0


def best_next(engine, evaluation, st, luck: int, follow: int = 0) -> int:
    """The index of the pending option whose result is best for the player to decide, each option
    followed by at most `follow` more of that player's decisions (the greedy bot's rule); the first
    of equal ones."""
    n = engine.option_count(st)
    if n == 1:
        return 0
    seat = engine.current_player(st)
    scores = [after(engine, evaluation, st, i, seat, luck, follow) for i in range(n)]
    return max(range(n), key=scores.__getitem__)


def where(st) -> tuple:
    """The round and phase a game is in: a move does not run past them."""
    return st.round, st.phase_index


def finish_move(engine, evaluation, st, seat: int, follow: int, chance, luck: int, at: tuple) -> None:
    """While `seat` is still the one to decide and the game is still in the round and phase `at`
    (`where` the game was before the move), at most `follow` times, take the best next option by
    one-step lookahead (in place, on `st`, its random events drawn by `chance`). The phase bounds a
    move where one player decides everything (a game of one player)."""
    while follow > 0 and st.result is None and engine.current_player(st) == seat and where(st) == at:
        engine.apply(st, best_next(engine, evaluation, st, luck), chance=chance)
        follow -= 1


def play_through_next_move(engine, evaluation, st, seat: int, at: tuple, follow: int, chance, luck: int,
                           cap: int = 200) -> None:
    """After `seat`'s move taken in round and phase `at` is over, play on, in place on `st`, every
    player taking the option the greedy rule gives (`best_next` with `follow`), until `seat` has made
    its next move in a later phase of the same round and that move is over; or until the round or
    the game ends first, or after `cap` decisions. The random events are drawn by `chance`."""
    round_number, next_at, steps = at[0], None, 0
    while st.result is None and steps < cap and st.round == round_number:
        who = engine.current_player(st)
        now = where(st)
        if who == seat and now != at:
            if next_at is None:
                next_at = now
            elif now != next_at:
                break
        elif who != seat and next_at is not None:
            break
        engine.apply(st, best_next(engine, evaluation, st, luck + steps, follow), chance=chance)
        steps += 1
