"""Playing many games: one record per game (who won, how long, how it ended, what was offered and
chosen), on worker processes when asked. Game `g` of a run is played with seed `seed + g`; the
records come back in that order whatever the number of workers, so the figures do not depend on it.
"""
from __future__ import annotations

import multiprocessing
import re

from ..agents import make_agents
from ..engine import GameError, InternalError, LimitError


def play_one(engine, players: int, agents: str, seed: int, tally: bool = True) -> dict:
    """Play one game to its end; return its record (a plain dict, as JSON data). Without `tally`
    the options offered and chosen are not counted (a speed benchmark pays nothing for them)."""
    bots = make_agents(agents, players, seed, engine=engine)
    st = engine.new_game(players, seed)
    offered: dict[str, list] = {}   # an option's label -> [games' decisions offering it, chosen]
    cards: dict[str, list] = {}     # a card's name -> [offered, chosen, bought]
    status, message = "finished", None
    try:
        while not engine.is_over(st):
            options = engine.options(st)
            who = st.pending["player"]
            bot = bots[who]
            choice = bot.choose(options, engine.view(st, who) if getattr(bot, "uses_view", True) else None)
            if tally:
                _tally(st.pending, options, choice, offered, cards)
            engine.apply(st, choice)
    except LimitError as exc:
        status, message = "limit", exc.diagnostic.message
    except InternalError as exc:
        status, message = "error", f"internal error: {exc.diagnostic.message}"
    except GameError as exc:
        status, message = "error", exc.diagnostic.message
    result = st.result or {}
    reason = result.get("reason") if status == "finished" else None
    if reason:  # "...; tie broken by rank (24)": games are grouped by how they ended, not by rank
        reason = re.sub(r" \(-?[0-9]+\)$", "", reason)
    winners = sorted(int(w[1:]) - 1 for w in result.get("winners", ())) if status == "finished" else []
    return {"seed": seed, "status": status, "message": message, "winners": winners, "rounds": st.round,
            "decisions": st.decisions, "reason": reason,
            "options": offered, "cards": cards}


def _tally(pending, options, choice, offered, cards) -> None:
    """Count, for one decision, the named options and the cards offered, the one chosen, and a card
    chosen in a `pick ... spend` (paid for: "bought")."""
    how = pending.get("how") or {}
    costs = how.get("costs") if how.get("kind") == "pick" else None
    for o in options:
        kind = o.id.split(":", 1)[0]
        chosen = o.index == choice.index
        if kind in ("option", "action"):
            row = offered.setdefault(o.label, [0, 0])
            row[0] += 1
            row[1] += chosen
        elif kind == "card":
            row = cards.setdefault(o.label, [0, 0, 0])
            row[0] += 1
            row[1] += chosen
            row[2] += chosen and costs is not None and o.index < len(costs) and costs[o.index] > 0


_worker: dict = {}


def _start_worker(engine, players, agents, tally):
    _worker.update(engine=engine, players=players, agents=agents, tally=tally)


def _play_in_worker(seed: int) -> dict:
    return play_one(_worker["engine"], _worker["players"], _worker["agents"], seed, _worker["tally"])


class ClusterError(Exception):
    """A Dask cluster that cannot be reached."""


def _play_chunk(engine, players: int, agents: str, seeds: list) -> list[dict]:
    return [play_one(engine, players, agents, s) for s in seeds]


def play_on_cluster(address: str, engine, players: int, agents: str, seeds: list, each=None) -> list[dict]:
    """Play the games on a Dask distributed cluster (its scheduler's address, `tcp://HOST:PORT`):
    the engine is sent once to every worker (it pickles as its program's recipe, so the workers need
    neither the ruleset's files nor this folder, only lfdsl installed), the seeds go in chunks, and
    the records come back in the order of `seeds`, as from a local run."""
    from distributed import Client, as_completed
    records = {}
    try:
        client = Client(address, set_as_default=False, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} ({exc.__class__.__name__})") from None
    with client:
        shared = client.scatter(engine, broadcast=True)
        size = max(1, min(25, len(seeds) // (4 * max(1, len(client.scheduler_info()["workers"])))))
        chunks = [seeds[i:i + size] for i in range(0, len(seeds), size)]
        futures = [client.submit(_play_chunk, shared, players, agents, c, pure=False) for c in chunks]
        for future in as_completed(futures, loop=client.loop):
            for record in future.result():
                records[record["seed"]] = record
                if each:
                    each(record)
    return [records[s] for s in seeds]


def play_many(engine, players: int, agents: str, seeds, workers: int = 1, each=None,
              cluster: str | None = None, tally: bool = True) -> list[dict]:
    """Play a game for every seed; `each(record)` is called as each game ends (in the order they
    end); the records are returned in the order of `seeds`. With `workers` above 1 the games are
    shared among that many processes, each with its own copy of the engine (an engine pickles as the
    recipe of its program); with `cluster`, among the workers of that Dask cluster."""
    seeds = list(seeds)
    if cluster:
        return play_on_cluster(cluster, engine, players, agents, seeds, each)
    if workers <= 1 or len(seeds) <= 1:
        out = []
        for s in seeds:
            out.append(play_one(engine, players, agents, s, tally))
            if each:
                each(out[-1])
        return out
    records = {}
    ctx = multiprocessing.get_context("spawn")  # no fork of a process that may run a display thread
    with ctx.Pool(min(workers, len(seeds)), _start_worker, (engine, players, agents, tally)) as pool:
        for record in pool.imap_unordered(_play_in_worker, seeds):
            records[record["seed"]] = record
            if each:
                each(record)
    return [records[s] for s in seeds]
