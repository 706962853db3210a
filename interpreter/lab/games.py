"""Playing many games: one record per game (who won, how long, how it ended, what was offered and
chosen), on worker processes when asked. Game `g` of a run is played with seed `seed + g`; the
records come back in that order whatever the number of workers, so the figures do not depend on it.
"""
from __future__ import annotations

import json
import multiprocessing
import queue
import re
import time

from rulesdsl.errors import Diagnostic

from ..bots.evaluation import Evaluation
from ..tools.agents import decide, make_agents
from ..engine import GameError, InternalError, LimitError

MAX_CURVE = 1000  # rounds of standings a game's record keeps


def play_one(engine, players: int, agents: str, seed: int, tally: bool = True) -> dict:
    """Play one game to its end; return its record (a plain dict, as JSON data). Without `tally`
    the options offered and chosen, the standings per round and the decisions per phase are not
    recorded (a speed benchmark pays nothing for them)."""
    bots = make_agents(agents, players, seed, engine=engine)
    st = engine.new_game(players, seed)
    offered: dict[str, list] = {}   # an option's label -> [games' decisions offering it, chosen]
    cards: dict[str, list] = {}     # a card's name -> [offered, chosen, bought]
    phases: dict[str, list] = {}    # a phase's name -> [decisions, options offered in all]
    curve: list = []  # every seat's standing as each round began (None: not evaluated there)
    final = None      # and as the game ended
    standing = Evaluation(engine).standings if tally else None
    began = None

    def count(st, options, choice):
        nonlocal began
        if (st.hand, st.round) != began and len(curve) < MAX_CURVE:  # the round's first decision
            began = (st.hand, st.round)
            curve.append(_standings(standing, st))
        _tally(engine.decision(st), options, choice, offered, cards)
        row = phases.setdefault(st.phase or "", [0, 0])
        row[0] += 1
        row[1] += len(options)
    status, message = play_out(engine, st, bots, count if tally else None)
    result = st.result or {}
    reason = result.get("reason") if status == "finished" else None
    if reason:  # "...; tie broken by rank (24)": games are grouped by how they ended, not by rank
        reason = re.sub(r" \(-?[0-9]+\)$", "", reason)
    winners = winners_of(st, status)
    if tally and status == "finished":
        final = _standings(standing, st)
    return {"seed": seed, "status": status, "message": message, "winners": winners, "rounds": st.round,
            "decisions": st.decisions, "reason": reason,
            "options": offered, "cards": cards, "phases": phases, "curve": curve, "final": final}


def play_out(engine, st, bots, each=None) -> tuple[str, str | None]:
    """Play game `st` to its end, each seat's decisions taken by its agent in `bots`
    (`agents.decide`), `each(st, options, choice)` called before each choice is applied: (status,
    message), "finished" or stopped by a "limit" or an "error", and why."""
    try:
        while not engine.is_over(st):
            options = engine.options(st)
            choice = decide(engine, st, bots[engine.current_player(st)], options)
            if each is not None:
                each(st, options, choice)
            engine.apply(st, choice)
    except LimitError as exc:
        return "limit", exc.diagnostic.message
    except InternalError as exc:
        return "error", f"internal error: {exc.diagnostic.message}"
    except GameError as exc:
        return "error", exc.diagnostic.message
    return "finished", None


def winners_of(st, status: str) -> list[int]:
    """The seats (from 0) that won a game that finished, in order; none for one that stopped."""
    return sorted(int(w[1:]) - 1 for w in (st.result or {}).get("winners", ())) if status == "finished" else []


def _standings(standing, st) -> list[float] | None:
    """Every seat's standing in `st` as the bots judge it (bots/evaluation.py), None when the
    evaluation fails there (a rule it reads failing): that round has no point on the curve."""
    try:
        return [round(float(s), 4) for s in standing(st)]
    except GameError:
        return None


def _tally(decision, options, choice, offered, cards) -> None:
    """Count, for one decision (`Engine.decision`), the named options and the cards offered, the one
    chosen, and a card chosen in a `pick ... spend` (paid for: "bought")."""
    costs = decision.costs
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


# How long a run waits for a worker to come back once its cluster has none: the chunks still to play
# wait in Dask's queue and go to the workers that join; after this, their games are given up as lost.
WORKERLESS_WAIT = 30.0
CONNECT_WAIT = 10.0  # seconds a scheduler has to answer before it is called unreachable
_POLL = 1.0     # seconds between two looks at the cluster while no chunk comes back
_GATHER = 5.0   # seconds to fetch a chunk's records from its worker before asking Dask again
_ADDRESS = re.compile(r"(?P<scheme>[a-z]+)://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]+)")


def cluster_address(text: str) -> list[Diagnostic]:
    """What is wrong with a scheduler's address given to `--cluster` (nothing: an empty list): it
    must read `tcp://HOST:PORT` (or `tls://`), the port a whole number from 1 to 65535, so that a
    typing mistake is said at once, where it is, and not after a wait for a connection."""
    def bad(col, message, hint="the scheduler prints its address when it starts, e.g. tcp://127.0.0.1:8786"):
        return [Diagnostic("--cluster", 1, col, message, hint, text)]
    m = _ADDRESS.fullmatch(text)
    if m is None:
        shown = text if len(text) <= 60 else text[:57] + "..."
        return bad(1, f"--cluster takes a Dask scheduler's address, tcp://HOST:PORT, not `{shown}`")
    if m["scheme"] not in ("tcp", "tls"):
        return bad(1, f"the scheme `{m['scheme']}` is not one Dask's scheduler listens on (tcp or tls)")
    port = m["port"]
    if len(port) > 5 or not 1 <= int(port) <= 65535:
        shown = port if len(port) <= 12 else f"{port[:6]}... ({len(port)} digits)"
        return bad(m.start("port") + 1, f"the port {shown} is not a port: ports are 1 to 65535")
    return []


def _not_a_scheduler(address: str) -> str | None:
    """Why `address` is not a Dask scheduler that answers (None when it is one). Asked once, with
    the whole exchange bounded: Dask's client waits for ever on a server that accepts the
    connection and then says nothing it understands (a web server, a firewall that holds it)."""
    import asyncio
    import socket

    from distributed.core import rpc
    from distributed.security import Security

    m = _ADDRESS.fullmatch(address)
    if m is None:
        return "not an address: tcp://HOST:PORT"
    try:  # Dask's own connection tries again and again until its timeout: a plain one says at once
        socket.create_connection((m["host"].strip("[]"), int(m["port"])), timeout=CONNECT_WAIT).close()
    except socket.gaierror:
        return f"no host is called {m['host']}"
    except ConnectionRefusedError:
        return "the connection was refused: is the scheduler running, on that port?"
    except TimeoutError:
        return f"no answer within {CONNECT_WAIT:g} s"
    except OSError as exc:
        return exc.strerror or type(exc).__name__

    async def identity():
        scheduler = rpc(address, connection_args=Security().get_connection_args("client"))
        try:
            return await scheduler.identity()
        finally:
            await scheduler.close_rpc()
    try:
        answer = asyncio.run(asyncio.wait_for(identity(), CONNECT_WAIT))
    except (asyncio.TimeoutError, TimeoutError):
        return f"no answer within {CONNECT_WAIT:g} s"
    except OSError as exc:
        return type(exc).__name__
    except Exception:  # what Dask makes of bytes that are not its protocol: anything
        return "what answers there does not speak Dask's protocol"
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        return "what answers there is not a Dask scheduler"
    return None


def _play_chunk(engine, players: int, agents: str, seeds: list, topic: str) -> list[dict]:
    from distributed import get_worker
    played = [play_one(engine, players, agents, s) for s in seeds]
    # Sent to the scheduler as soon as they are played: they reach the run even if this worker
    # dies before anyone fetches the task's result from it. As JSON text, since Dask's own
    # encoding of events turns lists into tuples.
    get_worker().log_event(topic, json.dumps(played))
    return played


def _same(engine):
    return engine


def lost_record(seed: int, message: str) -> dict:
    """The record of a game that was never played to its end (its worker went away): status `lost`."""
    return {"seed": seed, "status": "lost", "message": message, "winners": [], "rounds": 0, "decisions": 0,
            "reason": None, "options": {}, "cards": {}, "phases": {}, "curve": [], "final": None}


def play_on_cluster(address: str, engine, players: int, agents: str, seeds: list, each=None) -> list[dict]:
    """Play the games on a Dask distributed cluster (its scheduler's address, `tcp://HOST:PORT`):
    the engine goes to the workers once (it pickles as its program's recipe, so the workers need
    neither the ruleset's files nor this folder, only lfdsl installed), the seeds go in chunks, and
    the records come back in the order of `seeds`, as from a local run.

    Workers may come and go: a chunk's records come back through the scheduler as soon as they are
    played, and Dask plays a chunk again elsewhere when its worker leaves. When no worker is left for
    `WORKERLESS_WAIT` seconds, or the scheduler goes away, the games not played are given up: their
    records say `lost`, and those already played are kept."""
    import secrets
    from concurrent.futures import CancelledError

    from distributed import Client, KilledWorker
    wrong = _not_a_scheduler(address)
    if wrong:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} ({wrong})")
    try:
        client = Client(address, set_as_default=False, timeout=f"{CONNECT_WAIT:g}s")
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} ({exc.__class__.__name__})") from None
    records: dict[int, dict] = {}
    arrived = queue.SimpleQueue()  # lists of records, as the workers send them
    topic = f"lfdsl-games-{secrets.token_hex(8)}"  # this run's and no other's

    def take(played):
        for record in played:
            if record["seed"] not in records:  # a chunk played twice gives the same records
                records[record["seed"]] = record
                if each:
                    each(record)
    with client:
        client.subscribe_topic(topic, lambda event: arrived.put(json.loads(event[1])))
        # A task rather than scattered data: if every worker holding the engine goes, Dask makes it
        # again for the workers that come, where scattered data would be gone for good.
        shared = client.submit(_same, engine, pure=False)
        size = max(1, min(25, len(seeds) // (4 * max(1, len(client.scheduler_info()["workers"])))))
        chunks = [seeds[i:i + size] for i in range(0, len(seeds), size)]
        pending = {}
        for chunk in chunks:
            future = client.submit(_play_chunk, shared, players, agents, chunk, topic, pure=False)
            pending[future.key] = (future, chunk)
        gone = "the connection to the Dask scheduler was lost"
        why = None  # why the chunks still pending are given up
        empty_since = None
        while pending and why is None:
            try:
                take(arrived.get(timeout=_POLL))
            except queue.Empty:
                pass
            for key, (future, chunk) in list(pending.items()):
                if all(s in records for s in chunk):
                    del pending[key]
                    continue
                if future.status in ("pending", "lost"):
                    continue
                try:  # its records did not come with the others: asked of its worker
                    take(future.result(timeout=_GATHER))
                except TimeoutError:
                    continue  # gone with its worker while it was fetched: played again
                except KilledWorker:
                    take([lost_record(s, "every worker that played it died") for s in chunk])
                except CancelledError:
                    take([lost_record(s, "the Dask scheduler dropped it") for s in chunk])
                except OSError:
                    take([lost_record(s, gone) for s in chunk])
                del pending[key]
            if not pending:
                break
            try:
                workers = client.nthreads() if client.status == "running" else None
            except (OSError, TimeoutError):
                workers = None
            if workers is None:
                why = gone
            elif workers:
                empty_since = None
            elif empty_since is None:
                empty_since = time.monotonic()
            elif time.monotonic() - empty_since > WORKERLESS_WAIT:
                why = f"the cluster had no worker left for {WORKERLESS_WAIT:g} s"
        while True:  # records that arrived while the last chunks were looked at
            try:
                take(arrived.get_nowait())
            except queue.Empty:
                break
        take([lost_record(s, why) for _, chunk in pending.values() for s in chunk if s not in records])
        if pending:
            try:
                client.cancel([f for f, _ in pending.values()])
            except (OSError, TimeoutError):
                pass  # the scheduler is gone, and its queue with it
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
