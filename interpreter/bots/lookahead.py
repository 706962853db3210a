"""One-step lookahead on the evaluation, shared by the bots: score an option by the utility of the
game after it, and follow a player's own next decisions with that rule ("finish the move")."""
from __future__ import annotations

from ..chance import Sampler
from ..engine import GameError


def after(engine, evaluation, st, index: int, seat: int, luck: int, follow: int = 0) -> float:
    """`seat`'s utility after option `index` of `st` and, when `follow` > 0, the rest of `seat`'s
    move (`finish_move`), on a copy, its random events drawn from `luck`; -1 when the rules fail."""
    copy = engine.clone(st)
    chance = Sampler(luck)
    try:
        engine.apply(copy, index, chance=chance)
        finish_move(engine, evaluation, copy, seat, follow, chance, luck + 1, where(st))
        return evaluation.utilities(copy)[seat]
    except GameError:
        return -1.0


def best_next(engine, evaluation, st, luck: int) -> int:
    """The index of the pending option whose result is best for the player to decide."""
    n = len(st.pending["options"])
    if n == 1:
        return 0
    seat = st.pending["player"]
    scores = [after(engine, evaluation, st, i, seat, luck) for i in range(n)]
    return max(range(n), key=scores.__getitem__)


def where(st) -> tuple:
    """The round and phase a game is in: a move does not run past them."""
    return st.round, st.phase_index


def finish_move(engine, evaluation, st, seat: int, follow: int, chance, luck: int, at: tuple) -> None:
    """While `seat` is still the one to decide and the game is still in the round and phase `at`
    (`where` the game was before the move), at most `follow` times, take the best next option by
    one-step lookahead (in place, on `st`, its random events drawn by `chance`). The phase bounds a
    move where one player decides everything (a game of one player)."""
    while follow > 0 and st.result is None and st.pending["player"] == seat and where(st) == at:
        engine.apply(st, best_next(engine, evaluation, st, luck), chance=chance)
        follow -= 1
