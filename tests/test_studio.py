"""The studio (interpreter/studio; issue 31, point 4), through Starlette's test client: tables made
and played over websockets, each seat receiving its own player's board only, tables kept in SQLite
and played again after a restart, untrusted messages and paths refused, a trace stepped through.
The browser tests (tests/test_studio_browser.py) drive the same server in Chromium."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from interpreter.engine import Engine  # noqa: E402
from interpreter.studio.server import make_app  # noqa: E402
from interpreter.studio.store import Store  # noqa: E402

from .conftest import ROOT, html_texts  # noqa: E402


def _client(db=":memory:"):
    store = Store(str(ROOT), str(db))
    return store, TestClient(make_app(store))


def _new(client, ruleset, players, agents, seed=3):
    r = client.post("/new", data={"ruleset": ruleset, "players": str(players), "agents": agents, "seed": str(seed)},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    _, _, key, host = r.headers["location"].split("/")
    return key, host


def _play_to_end(client, key, token, limit=2000):
    """Take the first option at every turn of `token` until the game ends; the messages read."""
    seen = []
    with client.websocket_connect(f"/ws/{key}/{token}") as ws:
        msg = json.loads(ws.receive_text())
        seen.append(msg)
        for _ in range(limit):
            if msg["over"]:
                break
            assert msg["yours"]
            ws.send_text(json.dumps({"type": "choose", "turn": msg["turn"], "index": 0}))
            msg = json.loads(ws.receive_text())
            seen.append(msg)
    return seen


def test_a_duel_against_a_bot_is_played_to_its_end_over_the_websocket():
    store, client = _client()
    key, host = _new(client, "rulesets/duel.lf", 2, "human,random")
    seen = _play_to_end(client, key, host)
    assert seen[-1]["over"] and "Game over" in seen[-1]["html"]
    assert len(seen) > 20 and store.live[key].table.over
    page = client.get(f"/play/{key}/{host}")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]


def test_each_seat_receives_its_players_board_only():
    # Dartmoor, two remote people: seat 2's messages never name a card of P1's hand that P2 does not
    # see elsewhere, at any point of the game.
    store, client = _client()
    key, host = _new(client, "rulesets/dartmoor.lf", 2, "human,human")
    live = store.live[key]
    engine = live.table.engine
    with client.websocket_connect(f"/ws/{key}/{live.tokens['0']}") as one, \
            client.websocket_connect(f"/ws/{key}/{live.tokens['1']}") as two:
        m1, m2 = json.loads(one.receive_text()), json.loads(two.receive_text())
        for _ in range(60):
            st = live.table.state
            if live.table.over:
                break
            hand = {engine.names[st.card_def[c]] for c in st.zones["P1.hand"]}
            seen_by_two = {n for z, cs in engine.view(st, 1).data["zones"].items() if cs for n in cs if n}
            named = html_texts(m2["html"])
            assert not {n for n in hand - seen_by_two if n in named or any(t.startswith(n + ":") for t in named)}
            mover, other = (one, two) if m1["yours"] else (two, one)
            msg = m1 if m1["yours"] else m2
            assert not (m1["yours"] and m2["yours"])
            mover.send_text(json.dumps({"type": "choose", "turn": msg["turn"], "index": 0}))
            a, b = json.loads(mover.receive_text()), json.loads(other.receive_text())
            m1, m2 = (a, b) if mover is one else (b, a)
        # The other seat's token cannot play for it, nor can a message out of turn.
        waiting = two if m1["yours"] else one
        waiting.send_text(json.dumps({"type": "choose", "turn": m1["turn"], "index": 0}))
        assert json.loads(waiting.receive_text()) == {"type": "error", "message": "it is not your turn"}


def test_untrusted_messages_and_paths_are_answered_not_obeyed():
    store, client = _client()
    key, host = _new(client, "rulesets/duel.lf", 2, "human,random")
    with client.websocket_connect(f"/ws/{key}/{host}") as ws:
        msg = json.loads(ws.receive_text())
        for bad, answer in (("not json", "not JSON"), ('{"type": "choose", "turn": "1", "index": 0}', "whole numbers"),
                            ('{"type": "choose", "turn": 0, "index": 999}', "no such option"),
                            (json.dumps({"type": "choose", "turn": msg["turn"] + 5, "index": 0}), "already taken"),
                            ("x" * 10000, "too long"), ("[1, 2]", "a message is")):
            ws.send_text(bad)
            reply = json.loads(ws.receive_text())
            assert reply["type"] == "error" and answer in reply["message"]
    with pytest.raises(Exception):
        with client.websocket_connect(f"/ws/{key}/not-a-token") as ws:
            ws.receive_text()
    for name in ("../../etc/passwd", "/etc/passwd", "rulesets/../../x.lf", "README.md"):
        r = client.post("/new", data={"ruleset": name, "players": "2", "agents": "human,random"})
        assert r.status_code == 400 and "Traceback" not in r.text
    assert client.get("/trace", params={"path": "../../etc/passwd"}).status_code == 400
    assert client.get(f"/play/{key}/nope").status_code == 404


def test_ruleset_text_is_escaped_in_every_page(tmp_path):
    (tmp_path / "cards.toml").write_text('[[Token]]\nname = "<script>alert(1)</script>"\nvalue = 1\ncopies = 3\n')
    (tmp_path / "x.lf").write_text(
        'game "<b>Bold</b>" { players 2..2 cards "cards.toml" }\n'
        "kind Token { value: int; copies: int = 1 }\n"
        "zone pool: pile of Token\nzone kept: pile of Token per player\n"
        "setup { create defs(Token) into pool }\n"
        'round { phase a each p { choose c in pool "<i>take</i>" { move c to p.kept } } }\n'
        "victory for p after a { win if count(p.kept) >= 1 rank by count(p.kept) }\n")
    engine = Engine.load(tmp_path / "x.lf")  # the ruleset loads
    store = Store(str(tmp_path))
    client = TestClient(make_app(store))
    key, host = _new(client, "x.lf", 2, "human,human")
    with client.websocket_connect(f"/ws/{key}/{host}") as ws:
        msg = json.loads(ws.receive_text())
    assert "<script>" not in msg["html"] and "&lt;script&gt;" in msg["html"] and "<i>" not in msg["html"]
    page = client.get(f"/play/{key}/{host}").text
    assert "<b>Bold</b>" not in page and "&lt;b&gt;Bold&lt;/b&gt;" in page
    assert engine.model.game.name == "<b>Bold</b>"


def test_tables_survive_a_restart_and_a_changed_ruleset_is_kept_aside(tmp_path):
    db = tmp_path / "studio.sqlite"
    store, client = _client(db)
    key, host = _new(client, "rulesets/duel.lf", 2, "human,random")
    with client.websocket_connect(f"/ws/{key}/{host}") as ws:
        msg = json.loads(ws.receive_text())
        for _ in range(10):
            ws.send_text(json.dumps({"type": "choose", "turn": msg["turn"], "index": 0}))
            msg = json.loads(ws.receive_text())
    before = (store.live[key].table.history, store.engine("rulesets/duel.lf").snapshot(store.live[key].table.state))
    again, client2 = _client(db)  # a new server on the same database
    live = again.live[key]
    assert (live.table.history, again.engine("rulesets/duel.lf").snapshot(live.table.state)) == before
    with client2.websocket_connect(f"/ws/{key}/{host}") as ws:
        assert json.loads(ws.receive_text())["turn"] == msg["turn"]
    # The same table, its files changed since: kept aside with the reason, never played with other rules.
    import sqlite3
    con = sqlite3.connect(db)
    con.execute("update tables set files = ?", (json.dumps({"rulesets/duel.lf": "sha256:0"}),))
    con.commit()
    con.close()
    third = Store(str(ROOT), str(db))
    assert key not in third.live and "rules changed" in third.aside[key]
    # The database is a file like any other: rows not as the studio writes them are kept aside.
    con = sqlite3.connect(db)
    con.execute("update tables set files = ?", (json.dumps(live.table.engine.origin["files"]),))
    con.commit()
    row = con.execute("select * from tables").fetchone()
    for change in ("history = '[\"x\"]'", "players = 99", "tokens = '[1'", "seed = 'x'",
                   "ruleset = '../../etc/passwd'", "history = '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'"):
        con.execute("delete from tables")
        con.execute(f"insert into tables values ({', '.join('?' * len(row))})", row)
        con.execute(f"update tables set {change}")
        con.commit()
        spoiled = Store(str(ROOT), str(db))
        assert key not in spoiled.live and spoiled.aside[key], change
    con.close()
    (tmp_path / "not.sqlite").write_text("not a database")
    from interpreter.tools.cli import main
    assert main(["studio", "--root", str(tmp_path), "--db", str(tmp_path / "not.sqlite")]) == 2


def test_a_trace_steps_to_a_decision_with_the_state_the_trace_recorded(tmp_path):
    trace = ROOT / "tests" / f"_studio_trace_{tmp_path.name}.jsonl"
    try:
        subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "run", "rulesets/duel.lf", "--seed", "5",
                        "--agents", "random", "--quiet", "--trace", str(trace)], cwd=ROOT, check=True)
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        # The decision where a round starts near decision 40: its `state` event is the whole state then.
        choices = 0
        states = {}
        for ev in events:
            if ev["event"] == "state":
                states[choices] = ev["data"]
            elif ev["event"] == "choice":
                choices += 1
        n = min(k for k in states if k >= 40)
        store, client = _client()
        name = trace.relative_to(ROOT).as_posix()
        page = client.get("/trace", params={"path": name})
        assert page.status_code == 200 and page.text.count("<li data-n=") == choices
        assert "where to plant: (" not in page.text and "where to plant: 0," in page.text  # cells by the display
        out = client.get("/trace/step", params={"path": name, "n": str(n), "seat": "all"}).json()
        assert out["snapshot"] == states[n]
        seat = client.get("/trace/step", params={"path": name, "n": str(n), "seat": "1"}).json()
        assert seat["snapshot"] is None and "You are P2." in seat["html"] and "<svg" in out["curves"]
        assert client.get("/trace/step", params={"path": name, "n": "999999", "seat": "all"}).status_code == 400
    finally:
        trace.unlink(missing_ok=True)


def test_finished_games_beyond_the_kept_ones_are_read_again_from_sqlite(tmp_path, monkeypatch):
    from interpreter.studio import store as store_module
    monkeypatch.setattr(store_module, "KEEP_FINISHED", 1)
    store, client = _client(tmp_path / "s.sqlite")
    first = _new(client, "rulesets/duel.lf", 2, "human,random")
    _play_to_end(client, *first)
    second = _new(client, "rulesets/duel.lf", 2, "human,random")
    _play_to_end(client, *second)
    assert first[0] not in store.live and second[0] in store.live  # the older finished game let go
    with client.websocket_connect(f"/ws/{first[0]}/{first[1]}") as ws:  # and read again when asked
        msg = json.loads(ws.receive_text())
    assert msg["over"] and "Game over" in msg["html"] and msg["log"][0] == "== setup =="
