"""Shared fixtures: the repository root, a text snapshot extension (one .txt file per test), and the
guard that fails the run when a test leaves a file in the repository."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

ROOT = Path(__file__).resolve().parent.parent

# Hypothesis keeps no database of examples for this suite (every property test has its own fixed
# bounds), so nothing of it belongs in the repository.
settings.register_profile("lfdsl", database=None)
settings.load_profile("lfdsl")


HYPOTHESIS_HOME = pytest.StashKey[str]()


def pytest_configure(config):
    """Hypothesis also caches what it reads from the sources (in `.hypothesis/` of the working
    folder by default); that goes to a temporary folder, removed at the end of the run."""
    home = tempfile.mkdtemp(prefix="lfdsl-hypothesis-")
    config.stash[HYPOTHESIS_HOME] = home
    set_hypothesis_home_dir(home)


def pytest_unconfigure(config):
    home = config.stash.get(HYPOTHESIS_HOME, None)
    if home is not None:
        set_hypothesis_home_dir(None)
        shutil.rmtree(home, ignore_errors=True)


# Folders a run may change without a test being at fault: the virtual environment, git's own
# files, and Python's bytecode caches (written when a module is imported, by any process).
NOT_WATCHED = frozenset({".venv", ".git", "__pycache__"})


def player_traces(engine, *seats):
    """([the events each seat's player reads], a sink feeding every one of them): the traces of
    `seats` (from 0) as those players see the game (`Engine.player_sink`)."""
    traces = [[] for _ in seats]
    sinks = [engine.player_sink(seat, trace.append) for seat, trace in zip(seats, traces)]
    return traces, lambda event: [sink(event) for sink in sinks]


def tree_listing(root: Path) -> set[str]:
    """Every file and folder under `root`, as POSIX paths relative to it, except the folders (and
    files) named in `NOT_WATCHED` and all they contain."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_WATCHED]
        here = Path(folder).relative_to(root)
        found.update((here / name).as_posix() for name in dirs + files if name not in NOT_WATCHED)
    return found


@pytest.fixture(scope="session", autouse=True)
def the_suite_writes_nothing_into_the_repository(request):
    """Fails the session (as an error at the teardown of its last test) if a file or folder
    appeared in the repository while the tests ran. Tests write into `tmp_path`; only
    `pytest --snapshot-update` may add golden files. (A file added by hand while the tests run is
    reported too: the guard cannot tell who wrote it.)"""
    before = tree_listing(ROOT)
    yield
    new = tree_listing(ROOT) - before
    if request.config.getoption("--snapshot-update", default=False):
        new = {p for p in new if not p.startswith("tests/__snapshots__/")}
    if new:
        pytest.fail("the tests wrote into the repository (write into `tmp_path` instead):\n  "
                    + "\n  ".join(sorted(new)), pytrace=False)


class TextSnapshot(SingleFileSnapshotExtension):
    """Stores a snapshot as a readable UTF-8 text file, so a rules change shows as a diff."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"


@pytest.fixture
def text_snapshot(snapshot):
    """A snapshot fixture writing `__snapshots__/<module>/<test>.txt`."""
    return snapshot.use_extension(TextSnapshot)


@pytest.fixture(scope="session")
def base_engine():
    """The base-game ruleset, loaded and compiled once."""
    from interpreter.engine import Engine
    return Engine.load(ROOT / "rulesets" / "base.lf")


def scenario_passes(engine, path):
    """Run a scenario: it must state expectations and meet them all. Returns the runner."""
    from interpreter.tools.scenario import run_scenario
    outcomes, runner = run_scenario(engine, path)
    failed = [o.text for o in outcomes if not o.ok]
    assert outcomes, "the scenario states no expectation"
    assert not failed, "\n".join(failed + runner.log())
    return runner


def final_state(runner):
    """The state a scenario run by `runner` ends in, got by playing the scenario again through the
    engine's public calls: `new_game`, then, for a `[start]`, the runner's `arrange` and `start_at`,
    then `apply` for each step's choice; each of these returns the game state. The trace of this
    second game must equal the scenario run's, so the state is the one its expectations were
    judged on."""
    from interpreter.tools.trace import ListSink
    engine, data, sink = runner.engine, runner.data, ListSink()
    players, seed, start = data.get("players"), data.get("seed", 0), data.get("start")
    if start is None:
        st = engine.new_game(players, seed, sink=sink)
    else:
        st = engine.new_game(players, seed, sink=sink, setup_only=True)
        runner.arrange(st, start)
        first = start.get("player")
        st = engine.start_at(st, start["phase"], None if first is None else first - 1, start.get("round", 1),
                             sink=sink)
    for step in data.get("step", []):
        if "choose" in step:
            st = engine.apply(st, step["choose"], sink)
    assert sink.events == runner.sink.events, "the scenario played again is not the game the runner played"
    return st


def area(board_text: str, title: str) -> str:
    """The lines of one area of a board's text (interpreter/board/text.py): `Shared`, `P1`, ...,
    from its `-- TITLE` header to the next area's."""
    out, inside = [], False
    for line in board_text.splitlines():
        if line.startswith("-- "):
            inside = line[3:].startswith(title + " ") or line[3:].startswith(title + "-")
            continue
        if inside:
            out.append(line.strip())
    return "\n".join(out)


def exchanged(st, zone: str):
    """A copy of game `st` where two cards of `zone` that differ exchange what they are: a
    player who does not see that zone cannot tell the two games apart."""
    other = st.clone()
    cards = other.zones[zone]
    i, j = next((i, j) for i in range(len(cards)) for j in range(len(cards))
                if other.card_def[cards[i]] != other.card_def[cards[j]])
    other.card_def[cards[i]], other.card_def[cards[j]] = other.card_def[cards[j]], other.card_def[cards[i]]
    return other


def html_texts(page: str) -> set[str]:
    """Every text of an HTML fragment and every `title`, stripped, an option's number (`3. `) left
    out: the names a page shows."""
    import html.parser
    import re
    out = set()

    class Texts(html.parser.HTMLParser):
        def handle_data(self, data):
            out.add(re.sub(r"^[0-9]+\. ", "", data.strip()))

        def handle_starttag(self, tag, attrs):
            out.update(v for k, v in attrs if k == "title" and v)
    Texts().feed(page)
    return out
