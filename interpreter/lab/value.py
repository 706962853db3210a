"""What a card, an option or an action is worth, by restricted play (Jaffe, Miller, Andersen, Liu,
Karlin and Popović, "Evaluating Competitive Game Balance with Restricted Play", AIIDE 2012): one seat
plays with a bot that never takes the item (or, the converse, always takes it when it is offered),
the other seats with the usual bots; the drop of that seat's win rate from the same games played
without the restriction is what the item is worth to a player who may take it.

The design is paired: game `g` of every item and of the unrestricted baseline has seed `seed + g`
and puts the restricted seat at `g % players` (seats rotated), so that the deals and the bots'
generators are the same and only the restriction differs. An item's drop is the mean over the games
of (the seat won in the baseline) - (it won restricted), a shared win counting as a win; its 95%
interval is Agresti and Min's for a difference of paired proportions (a Wald interval on the table
of pairs with half a game added to each cell: it does not shrink to a point when no pair differs),
and its test McNemar's exact test on the games where the two differ (statsmodels), the p-values of
every item corrected together by Holm's method. A game stopped by a limit or an error,
on either side, leaves its pair out.

The restriction bites only where the seat's bot would have done otherwise: the bot first chooses
among all the options, as it would unrestricted; only when it picks the item (or, the converse,
passes it by) does it choose again among the options the rule leaves. Until the first such bite a
restricted game is the baseline's move for move, so the pairs differ only by what the restriction
changed, and a game where the baseline's seat never took the item (passed it by) is the baseline's
own, not played again. A restricted seat whose every option is the item takes it anyway (the rules
ask it to choose). `steered` counts the bites: an item never steered is one the seat's bot never
wanted (or, the converse, never refused) in these games, and worth nothing to it there.

The items are found by the baseline's games: every card (by name), labelled option or action
offered to some player at least once.
"""
from __future__ import annotations

import multiprocessing

from ..tools.agents import make_agents
from .games import play_out, winners_of

KINDS = ("cards", "options", "actions")
MODES = ("avoid", "take")
ALPHA = 0.05
Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
METHODS = {"interval": "Agresti-Min: Wald on the paired table with 0.5 added to each cell (Agresti and Min, 2005)",
           "test": "McNemar's exact test on the discordant pairs (statsmodels)",
           "correction": "Holm (statsmodels.stats.multitest.multipletests, method='holm')"}


def item_of(engine, option, kind: str) -> str | None:
    """The item option `option` is of `kind` (a card's name for `cards`, an option's label for
    `options`, an action's for `actions`), or None when it is none of that kind."""
    head, _, rest = option.id.partition(":")
    if kind == "cards":
        if head == "card" and not rest.startswith("?"):  # a card not seen where it lies is no known card
            return engine.names[int(rest.split("@", 1)[0])]
        if head == "def":
            return engine.names[int(rest)]
        return None
    if (kind == "options" and head == "option") or (kind == "actions" and head == "action"):
        return option.label
    return None


class Steered:
    """An agent that chooses as `inner` does, except where that choice breaks the rule: `avoid`
    refuses the options that are `item` when another is offered, `take` wants one of them when one
    is offered; there it chooses again among the options the rule leaves. `steered` counts those
    bites."""

    def __init__(self, inner, engine, kind: str, item: str, mode: str):
        self.inner, self.engine, self.kind, self.item, self.mode = inner, engine, kind, item, mode
        self.uses_view = getattr(inner, "uses_view", True)
        self.bot = getattr(inner, "bot", False)
        self.name = getattr(inner, "name", "agent")
        self.steered = 0

    def choose(self, options: list, view):
        choice = self.inner.choose(options, view)
        hits = [item_of(self.engine, o, self.kind) == self.item for o in options]
        if all(hits) or not any(hits) or (item_of(self.engine, choice, self.kind) == self.item) != (self.mode == "avoid"):
            return choice
        kept = [o for o, hit in zip(options, hits) if hit == (self.mode == "take")]
        self.steered += 1
        if len(kept) == 1 and self.bot:
            return kept[0]
        return self.inner.choose(kept, view)


def play(engine, players: int, agents: str, seed: int, seat: int, kind: str, item: str | None,
         mode: str = "avoid") -> dict:
    """One game: `seat` steered away from (or to) `item` (None: nobody is steered, the baseline).
    Its record: the winners, whether it finished, how often the seat was steered, the items of
    `kind` offered to anyone (the baseline's, to find the items), and the items the seat took and
    passed by where it had a choice (the baseline's, to know which games a restriction can change)."""
    bots = make_agents(agents, players, seed, engine=engine)
    steered = None
    if item is not None:
        steered = bots[seat] = Steered(bots[seat], engine, kind, item, mode)
    st = engine.new_game(players, seed)
    offered: dict[str, int] = {}
    took: set[str] = set()
    passed: set[str] = set()

    def count(st, options, choice):
        names = {item_of(engine, o, kind) for o in options}
        for name in names - {None}:
            offered[name] = offered.get(name, 0) + 1
        if engine.current_player(st) == seat and len(names) > 1:
            chosen = item_of(engine, choice, kind)
            took.add(chosen)
            passed.update(names - {chosen})
    status, _ = play_out(engine, st, bots, count if item is None else None)
    return {"seed": seed, "seat": seat, "status": status, "won": seat in winners_of(st, status),
            "steered": steered.steered if steered is not None else 0, "offered": offered,
            "took": sorted(took - {None}), "passed": sorted(passed - {None})}


_worker: dict = {}


def _start(engine, players, agents, kind, mode):
    _worker.update(engine=engine, players=players, agents=agents, kind=kind, mode=mode)


def _job(job):
    key, seed, seat, item = job
    w = _worker
    return key, play(w["engine"], w["players"], w["agents"], seed, seat, w["kind"], item, w["mode"])


def _play_all(engine, players, agents, kind, mode, jobs, workers, progress) -> dict:
    """{key: record} of every job (key, seed, seat, item), on `workers` processes."""
    out = {}
    if workers <= 1 or len(jobs) <= 1:
        _start(engine, players, agents, kind, mode)
        for job in jobs:
            key, record = _job(job)
            out[key] = record
            if progress is not None:
                progress()
        return out
    ctx = multiprocessing.get_context("spawn")  # no fork of a process that may run a display thread
    with ctx.Pool(min(workers, len(jobs)), _start, (engine, players, agents, kind, mode)) as pool:
        for key, record in pool.imap_unordered(_job, jobs):
            out[key] = record
            if progress is not None:
                progress()
    return out


def baseline(engine, players: int, agents: str, games: int, kind: str, seed: int = 1, workers: int = 1,
             progress=None) -> list[dict]:
    """The unrestricted games, game `g` with seed `seed + g` and its seat `g % players` followed."""
    jobs = [(g, seed + g, g % players, None) for g in range(games)]
    played = _play_all(engine, players, agents, kind, "avoid", jobs, workers, progress)
    return [played[g] for g in range(games)]


def items_offered(records: list[dict]) -> list[tuple[str, int]]:
    """(item, decisions offering it over the games), most offered first, then by name."""
    total: dict[str, int] = {}
    for r in records:
        for name, n in r["offered"].items():
            total[name] = total.get(name, 0) + n
    return sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))


def restricted(engine, players: int, agents: str, games: int, kind: str, items: list[str], mode: str = "avoid",
               seed: int = 1, workers: int = 1, progress=None, base: list[dict] | None = None) -> dict[str, list[dict]]:
    """{item: its games}, game `g` of each with seed `seed + g` and seat `g % players` steered.
    Given the `base`line's records of the same games, a game where its seat never took the item
    (`avoid`; never passed it by, `take`) is that record, with no bite: the restriction could not
    change it, and it is not played again."""
    def same(g, item):
        return base is not None and item not in base[g]["took" if mode == "avoid" else "passed"]
    jobs = [((i, g), seed + g, g % players, item) for i, item in enumerate(items) for g in range(games)
            if not same(g, item)]
    skipped = len(items) * games - len(jobs)
    if progress is not None:
        for _ in range(skipped):
            progress()
    played = _play_all(engine, players, agents, kind, mode, jobs, workers, progress)
    return {item: [played[(i, g)] if (i, g) in played else _unchanged(base[g]) for g in range(games)]
            for i, item in enumerate(items)}


def _unchanged(record: dict) -> dict:
    """A baseline game's record as the restricted game it is when the restriction never bites."""
    return {**record, "steered": 0}


def paired_interval(lost: int, gained: int, n: int) -> tuple[float, float]:
    """Agresti and Min's 95% interval of a difference of paired proportions ("Simple improved
    confidence intervals for comparing matched proportions", Statistics in Medicine 24, 2005): `n`
    pairs, `lost` of them a success on the first side only, `gained` on the second only."""
    b, c, m = lost + 0.5, gained + 0.5, n + 2
    diff = (b - c) / m
    half = Z95 * ((b + c) - (b - c) ** 2 / m) ** 0.5 / m
    return max(-1.0, diff - half), min(1.0, diff + half)


def worth(base: list[dict], runs: dict[str, list[dict]]) -> list[dict]:
    """One row per item: the paired games, the seat's win rate in the baseline and restricted, the
    drop (baseline - restricted) with its 95% interval, the test's p-value and Holm's, sorted by
    drop, largest first (see the module's description for the methods)."""
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests

    rows = []
    for item, games in runs.items():
        pairs = [(b["won"], r["won"]) for b, r in zip(base, games)
                 if b["status"] == "finished" and r["status"] == "finished"]
        row = {"item": item, "games": len(pairs), "left_out": len(games) - len(pairs),
               "steered_games": sum(r["steered"] > 0 for r in games), "steered": sum(r["steered"] for r in games)}
        if pairs:
            n = len(pairs)
            lost = sum(1 for b, r in pairs if b and not r)
            gained = sum(1 for b, r in pairs if r and not b)
            row["baseline"] = sum(b for b, _ in pairs) / n
            row["restricted"] = sum(r for _, r in pairs) / n
            row["drop"] = (lost - gained) / n
            row["interval95"] = list(paired_interval(lost, gained, n))
            row["discordant"] = [lost, gained]
            row["p"] = float(mcnemar([[0, lost], [gained, 0]], exact=True).pvalue) if lost + gained else 1.0
        else:
            row.update(baseline=None, restricted=None, drop=None, interval95=None, discordant=[0, 0], p=None)
        rows.append(row)
    tested = [r for r in rows if r["p"] is not None]
    if tested:
        reject, corrected, _, _ = multipletests([r["p"] for r in tested], alpha=ALPHA, method="holm")
        for r, q, sig in zip(tested, corrected, reject):
            r["p_holm"], r["significant"] = float(q), bool(sig)
    for r in rows:
        r.setdefault("p_holm", None)
        r.setdefault("significant", False)
    rows.sort(key=lambda r: (r["drop"] is None, -(r["drop"] or 0.0), r["item"]))
    return rows
