"""The studio in a real browser: Debian's Chromium, driven by Playwright (which downloads no browser
of its own), against `lfdsl studio` run as a server on 127.0.0.1. A whole Duel against a bot; two
remote seats in two browser contexts, seat 2's raw websocket messages never naming P1's hidden
cards; the server stopped and started again mid-game, both seats going on; a trace stepped to
decision 40 in the move list."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import sync_playwright  # noqa: E402

from interpreter.engine import Engine  # noqa: E402

from .conftest import ROOT, html_texts  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it)")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`lfdsl studio` in a process of its own, on the database `db`."""

    def __init__(self, db, port=None):
        self.db, self.port = str(db), port or _free_port()
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "interpreter.tools.cli", "studio", "--root", str(ROOT),
                                      "--db", self.db, "--port", str(self.port)], cwd=ROOT,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 90  # a loaded machine (the suite on every core) starts it slowly
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url("/"), timeout=5).read()
                return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(self.proc.stderr.read().decode())
                time.sleep(0.1)
        raise RuntimeError("the studio did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def _new_table(page, server, ruleset, players, agents):
    page.goto(server.url("/"))
    page.select_option("select[name=ruleset]", ruleset)
    page.fill("input[name=players]", str(players))
    page.fill("input[name=agents]", agents)
    page.fill("input[name=seed]", "3")  # the same game at every run
    page.click("button[type=submit]")
    page.wait_for_selector("#board .title")
    return page.url


def _take_first(page):
    """Click the first option of the question shown, and wait for the board to change."""
    turn = page.evaluate("() => document.querySelector('#board').innerHTML")
    page.click("#board .question button.choice >> nth=0")
    page.wait_for_function("(old) => document.querySelector('#board').innerHTML !== old", arg=turn)


def test_a_whole_duel_against_a_bot_in_the_browser(browser, tmp_path):
    server = Server(tmp_path / "s.sqlite").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        _new_table(page, server, "rulesets/duel.lf", 2, "human,random")
        for _ in range(600):
            if "Game over" in page.inner_text("#board"):
                break
            _take_first(page)
        assert "Game over" in page.inner_text("#board")
        assert page.inner_text("#status") == "game over" and "== setup ==" in page.inner_text("#log")
    finally:
        server.stop()


def test_two_remote_seats_see_their_own_cards_only_and_survive_a_restart(browser, tmp_path):
    db = tmp_path / "s.sqlite"
    server = Server(db).start()
    try:
        host = browser.new_page()
        _new_table(host, server, "rulesets/dartmoor.lf", 2, "human,human")
        links = [a.get_attribute("href") for a in host.query_selector_all("p.status a")]
        assert len(links) == 2
        key = links[0].split("/")[-2]
        seats = []
        frames: list[str] = []
        for n, link in enumerate(links):
            context = browser.new_context()  # each person a browser of their own
            page = context.new_page()
            if n == 1:
                page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(str(data))))
            page.goto(link)
            page.wait_for_selector("#board .title")
            seats.append(page)
        engine = Engine.load(ROOT / "rulesets" / "dartmoor.lf")

        def play(moves):
            for _ in range(moves):
                deadline = time.monotonic() + 30  # the other page may not have its new board yet
                while not any(p.query_selector("#board .question button.choice") for p in seats):
                    assert time.monotonic() < deadline, "no seat was asked anything"
                    time.sleep(0.05)
                mover = next(p for p in seats if p.query_selector("#board .question button.choice"))
                _take_first(mover)
        play(12)
        server.stop()  # mid-game: both pages lose their connection and try again
        server = Server(db, server.port).start()
        for page in seats:
            page.wait_for_function("() => document.querySelector('#status').textContent !== 'reconnecting...'")
        play(12)
        # Each message seat 2 received, against the game at that decision (played again from the
        # saved history): no card of P1's hand that P2 did not see elsewhere, in its board or log.
        from interpreter.studio.store import Store
        saved = Store(str(ROOT), str(db)).live[key].table
        history = saved.history
        assert len(history) >= 24
        boards = [m for m in map(json.loads, frames) if m.get("type") == "board"]
        assert boards
        for msg in boards:
            st = engine.new_game(2, saved.seed)
            for index in history[:msg["turn"]]:
                engine.apply(st, index)
            seen = {n for cs in engine.view(st, 1).data["zones"].values() if cs for n in cs if n}
            hidden = {engine.names[st.card_def[c]] for c in st.zones["P1.hand"]} - seen
            hidden = {n for n in hidden if not any(n in other for other in seen)}
            shown = html_texts(msg["html"])
            assert not {n for n in hidden if n in shown or any(t.startswith(n + ":") for t in shown)}
            assert not {n for n in hidden for line in msg["log"] if n in line}
    finally:
        server.stop()


def test_a_trace_stepped_to_decision_40_in_the_browser(browser, tmp_path):
    trace = ROOT / "tests" / f"_browser_trace_{os.getpid()}.jsonl"
    subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "run", "rulesets/duel.lf", "--seed", "5",
                    "--agents", "random", "--quiet", "--trace", str(trace)], cwd=ROOT, check=True)
    server = Server(tmp_path / "s.sqlite").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        name = trace.relative_to(ROOT).as_posix()
        page.goto(server.url("/trace?path=" + name))
        page.wait_for_selector("#board .title")
        page.click(".moves li[data-n='40']")
        page.wait_for_selector(".moves li.at[data-n='40']")
        shown = page.inner_html("#board")
        step = json.loads(urllib.request.urlopen(server.url(f"/trace/step?path={name}&n=40&seat=all")).read())
        # The same board as the server's step (the browser writes its HTML back in its own way: the
        # texts and titles are compared), the whole state then (the referee's).
        assert html_texts(shown) == html_texts(step["html"]) and "Everything (the referee)." in shown
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(".moves li.at[data-n='41']")
        # At the round that starts first from decision 40 on, the trace recorded the whole state (its
        # `state` event, what `lfdsl run --full-state` prints): the page shows that state.
        from interpreter.board import build
        from interpreter.board.model import Referee
        from interpreter.studio.render import board_html
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        choices, recorded = 0, {}
        for ev in events:
            if ev["event"] == "state":
                recorded[choices] = (ev["data"], ev["round"], ev["phase"])
            choices += ev["event"] == "choice"
        n = min(k for k in recorded if k >= 40)
        page.click(f".moves li[data-n='{n}']")
        page.wait_for_selector(f".moves li.at[data-n='{n}']")
        engine = Engine.load(ROOT / "rulesets" / "duel.lf")
        data, round_, phase = recorded[n]
        expected = board_html(build(engine, Referee({k: v for k, v in data.items()}, round_, phase)), False)
        assert html_texts(page.inner_html("#board")) == html_texts(expected)
    finally:
        server.stop()
        trace.unlink(missing_ok=True)
