"""Simulation on a Dask cluster that loses its workers: the games played are kept and written, the
lost seeds are named (exit 5), games go on when workers come back, and a `--cluster` address is
checked before any connection (a port of 5,000 digits, a server that never answers)."""
from __future__ import annotations

import json
import re
import socket
import threading

import pytest

from interpreter.tools.cli import main
from interpreter.engine import Engine
from interpreter.lab import games, show

from .conftest import ROOT
from .test_hostile import POSITIONED, lfdsl

COINS = ROOT / "tests" / "rulesets" / "lab" / "coins.lf"
HANG = 120  # seconds: a command still running then waits on something that will not come


def finished_within(seconds, call):
    """`call()`'s value; a failed test, not a hung suite, when it waits for ever."""
    box = {}
    worker = threading.Thread(target=lambda: box.update(value=call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still waiting after {seconds} s"
    return box["value"]


class Watch:
    """Stands for the progress bar: after `after` games have come back, does `then()`, once."""

    def __init__(self, after, then):
        self.after, self.then, self.done = after, then, 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add_task(self, *args, **kwargs):
        return 0

    def advance(self, task):
        self.done += 1
        if self.done == self.after:
            self.then()


@pytest.fixture
def cluster():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as c:
        yield c


def simulate(tmp_path, cluster_address, *more):
    out, page = tmp_path / "out.json", tmp_path / "out.html"
    code = finished_within(HANG, lambda: main(["simulate", str(COINS), "--agents", "random", "--games", "200",
                                               "--seed", "5", "--cluster", cluster_address, "--json", str(out),
                                               "--report", str(page), *more]))
    return code, json.loads(out.read_text()), page.read_text()


def test_losing_every_worker_keeps_the_games_played_and_names_the_lost_seeds(cluster, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(games, "WORKERLESS_WAIT", 1.0)
    monkeypatch.setattr(show, "progress", lambda console: Watch(1, lambda: cluster.scale(0)))
    code, data, page = simulate(tmp_path, cluster.scheduler_address)
    out, err = capsys.readouterr()
    assert code == 5
    lost = [f["seed"] for f in data["failed_seeds"] if f["status"] == "lost"]
    assert 0 < data["lost"] == len(lost) < 200 and data["finished"] > 0
    assert data["finished"] + data["stopped_by_limit"] + data["errors"] + data["lost"] == data["games"] == 200
    assert {f["message"] for f in data["failed_seeds"] if f["status"] == "lost"} == {
        "the cluster had no worker left for 1 s"}
    # The games kept are the games a local run plays with those seeds.
    local = games.play_many(Engine.load(COINS), 2, "random", [s for s in range(5, 205) if s not in lost])
    assert data["finished"] == sum(r["status"] == "finished" for r in local)
    assert [f for f in data["failed_seeds"] if f["status"] != "lost"] == [
        {"seed": r["seed"], "status": r["status"], "message": r["message"]} for r in local if r["status"] != "finished"]
    assert f"lfdsl: {len(lost)} games of 200 lost with the cluster (the cluster had no worker left for 1 s): seeds " in err
    assert "Traceback" not in err and "internal error" not in err
    assert "lost with the cluster" in out and "Win rate per seat" in out
    assert f"<tr><td class=\"l\">lost with the cluster</td><td>{len(lost)}</td></tr>" in page and "<svg" in page


def test_workers_that_come_back_play_the_games_left(cluster, tmp_path, monkeypatch, capsys):
    def lose_and_return():
        cluster.scale(0)
        threading.Timer(0.5, lambda: cluster.scale(2)).start()
    monkeypatch.setattr(show, "progress", lambda console: Watch(1, lose_and_return))
    code, data, _ = simulate(tmp_path, cluster.scheduler_address)
    assert code == 0 and data["lost"] == 0
    local = tmp_path / "local.json"
    assert main(["simulate", str(COINS), "--agents", "random", "--games", "200", "--seed", "5", "--workers", "1",
                 "--json", str(local)]) == 0
    assert json.loads(local.read_text()) == data


@pytest.mark.parametrize("address, col, message", [
    ("tcp://127.0.0.1:" + "9" * 5000, 17, "the port 999999... (5000 digits) is not a port: ports are 1 to 65535"),
    ("tcp://127.0.0.1:0", 17, "the port 0 is not a port: ports are 1 to 65535"),
    ("tcp://127.0.0.1:65536", 17, "the port 65536 is not a port: ports are 1 to 65535"),
    ("http://127.0.0.1:8786", 1, "the scheme `http` is not one Dask's scheduler listens on (tcp or tls)"),
    ("tcp://127.0.0.1", 1, "--cluster takes a Dask scheduler's address, tcp://HOST:PORT, not `tcp://127.0.0.1`"),
])
def test_a_cluster_address_is_checked_before_any_connection(address, col, message):
    code, out, err, _ = lfdsl("simulate", str(COINS), "--games", "2", "--cluster", address)
    assert code == 2, err
    assert err.startswith(f"--cluster:1:{col}: {message}\n")
    assert POSITIONED.match(err) and "Traceback" not in err


def test_a_server_that_never_answers_is_said_plainly(monkeypatch, capsys):
    monkeypatch.setattr(games, "CONNECT_WAIT", 1.0)
    with socket.socket() as server:  # takes connections (the system's backlog) and says nothing
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        code = finished_within(HANG, lambda: main(["simulate", str(COINS), "--agents", "random", "--games", "2",
                                                   "--cluster", f"tcp://127.0.0.1:{port}"]))
    err = capsys.readouterr().err
    assert code == 2
    assert f"lfdsl: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} (no answer within 1 s)" in err


@pytest.mark.parametrize("command, more", [
    ("compare", ["--set-b", "goal=3"]),
    ("simulate", ["--sweep", "goal=4..5"]),
    ("tune", ["--param", "goal=2..9", "--target", "median rounds 3", "--trials", "3"]),
])
def test_compare_sweep_and_tune_say_which_games_the_cluster_lost(command, more, cluster, monkeypatch, capsys):
    monkeypatch.setattr(games, "WORKERLESS_WAIT", 1.0)
    monkeypatch.setattr(show, "progress", lambda console: Watch(1, lambda: cluster.scale(0)))
    code = finished_within(HANG, lambda: main([command, str(COINS), *more, "--agents", "random", "--games", "100",
                                               "--cluster", cluster.scheduler_address]))
    err = capsys.readouterr().err
    assert code == 5
    assert re.search(r"lfdsl: [0-9]+ games of [0-9]+ lost with the cluster \(the cluster had no worker left for 1 s\)"
                     r": seeds [0-9]", err)
    assert "Traceback" not in err and "internal error" not in err
    if command == "tune":  # a trial with missing games cannot be weighed: the search stops
        assert "lfdsl: the search stopped: a trial cannot be weighed without all its games" in err
