"""Hostile rulesets: each ends with a positioned error (or a clean stop) in under 2 s of CPU (more on
a slow machine: see `cpu_limit`).

The files in `tests/hostile/` carry their expectation inline:

    # expect: check exit 2            the command (`check`, or `run --quiet`) and the exit codes allowed
    # expect-line: 5                 the error is reported at this line of this file (optional)
    # must-not-print: root:          text that must appear in neither stdout nor stderr
                                     (`$CANARY` stands for the value of a variable set for the run)

Inputs that cannot live in the repository (a FIFO, a directory, a symbolic link, files of several
megabytes, 10,000 levels of nesting) are written into `tmp_path` by the tests below.
Each command runs in a subprocess under a CPU limit, a memory limit and a wall-clock timeout,
with an open and silent standard input.
"""
from __future__ import annotations

import functools
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = Path(__file__).resolve().parent / "hostile"

CPU_LIMIT = 2.0          # seconds of CPU a hostile input may cost, Python's start included
STARTS = 6               # ... or this many plain checks of a small ruleset, on a machine slow enough
# A command still running after this long is waiting on something: a hang. One that computes is
# stopped by its CPU limit long before, even on a machine that many processes share (`make test`
# runs a worker per core): `tune` checking its parameters, 2 s of CPU, took over 10 s of wall time
# with both cores busy.
WALL_TIMEOUT = 60.0
MEMORY_LIMIT = 2 ** 30
CANARY = "lfdsl-canary-5c1e0b7d"
POSITIONED = re.compile(r"^[^:\s][^:]*:\d+:\d+: ")


def _limits(cpu: float, memory: int):
    resource.setrlimit(resource.RLIMIT_CPU, (int(cpu) + 2, int(cpu) + 3))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


@functools.cache
def cpu_limit() -> float:
    """The CPU a hostile input may cost on this machine: CPU_LIMIT, or STARTS times what a plain
    `lfdsl check` of a small valid ruleset costs here when that is more (a slow or busy machine).
    What these tests catch, a blow-up, costs orders of magnitude more than a start; a slow machine
    costs a small factor on everything, the start included."""
    with tempfile.TemporaryDirectory() as folder:
        rules = _folder(Path(folder)) / "ok.lf"
        rules.write_text(GAME.format(cards="tiny.toml") + ROUND)
        code, _, err, cpu = lfdsl("check", str(rules), limit=CPU_LIMIT)
    assert code == 0, err
    return max(CPU_LIMIT, STARTS * cpu)


# The CLI's entry with some modules made unimportable, as if they were not installed.
WITHOUT = ("import sys\nfor m in sys.argv[1].split(','): sys.modules[m] = None\n"
           "from interpreter.tools.cli import main\nsys.exit(main(sys.argv[2:]))")


def lfdsl(*argv, cwd=None, limit=None, without=(), memory=MEMORY_LIMIT) -> tuple[int | None, str, str, float]:
    """Run `python -m interpreter.tools.cli ARGV`, with the modules `without` unimportable; returns (exit
    code or None on a hang, stdout, stderr, CPU seconds of the child). Standard input is a pipe
    nobody writes to and nobody closes; `memory` bounds the child's address space."""
    limit = cpu_limit() if limit is None else limit  # worked out here, never in the child
    env = dict(os.environ, LFDSL_CANARY=CANARY, PYTHONPATH=str(ROOT))
    entry = ["-c", WITHOUT, ",".join(without)] if without else ["-m", "interpreter.tools.cli"]
    quiet_in, keep_open = os.pipe()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.Popen([sys.executable, *entry, *argv], cwd=cwd or ROOT,
                                stdin=quiet_in, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, preexec_fn=functools.partial(_limits, limit, memory))
        try:
            out, err = proc.communicate(timeout=WALL_TIMEOUT)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            code = None
    finally:
        os.close(quiet_in)
        os.close(keep_open)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), cpu


def assert_clean_end(result, exits=(2, 3), secrets=(), where=None, whole_file=None):
    """The shared oracle: an allowed exit, no hang, no traceback, a positioned first line of
    stderr for an error (at `where`, a `(path, line)`, when given), within the CPU limit, and
    nothing of a secret printed. A file given on the command line that cannot be read at all
    (`whole_file`) is named alone: `path: message`."""
    code, out, err, cpu = result
    shown = f"exit {code}, {cpu:.2f} s CPU\nstderr:\n{err[-2000:]}"
    assert code is not None, f"still running after {WALL_TIMEOUT} s (a hang)\n{shown}"
    assert code >= 0, f"killed by signal {-code} (the CPU or memory limit)\n{shown}"
    assert "Traceback (most recent call last)" not in err, shown
    assert code in exits, shown
    assert cpu < cpu_limit(), shown
    if code in (2, 3):
        first = err.lstrip("\n").split("\n", 1)[0]
        assert POSITIONED.match(first) or (whole_file and first.startswith(f"{whole_file}: ")), \
            f"the first line is not `file:line:col: message`\n{shown}"
        if where is not None:
            assert first.startswith(f"{where[0]}:{where[1]}:"), f"the error is not at {where[0]}:{where[1]}\n{shown}"
    for secret in secrets:
        assert secret not in out and secret not in err, f"{secret!r} was printed\n{shown}"


def _annotated():
    return sorted(HOSTILE.glob("*.lf"))


def _expectation(path: Path):
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^# expect: (check|run) exit ([\d ]+)$", text, re.M)
    assert m, f"{path.name} has no `# expect:` line"
    secrets = [CANARY if s == "$CANARY" else s for s in re.findall(r"^# must-not-print: (.+)$", text, re.M)]
    line = re.search(r"^# expect-line: (\d+)$", text, re.M)
    return m.group(1), tuple(int(c) for c in m.group(2).split()), secrets, int(line.group(1)) if line else None


def test_the_hostile_files_are_there():
    assert len(_annotated()) >= 20


@pytest.mark.parametrize("path", _annotated(), ids=lambda p: p.stem)
def test_hostile_file(path):
    command, exits, secrets, line = _expectation(path)
    argv = ["check", str(path)] if command == "check" else ["run", str(path), "--quiet", "--seed", "1"]
    assert_clean_end(lfdsl(*argv), exits, secrets, (str(path), line) if line else None)


# ---- inputs written at test time --------------------------------------------------------------
GAME = '''game "Hostile" {{
    players 1..1
    cards "{cards}"
}}
kind Token {{
    value: int
}}
counter n = 0
'''
ROUND = '''round {
    phase go each p {
        choose {
            option a { set n += 1 }
            option b { set n += 2 }
        }
    }
}
victory for p after go {
    win if n > 3
    rank by n
}
'''


def _folder(tmp_path: Path) -> Path:
    """A ruleset folder with the small card database."""
    shutil.copy(HOSTILE / "tiny.toml", tmp_path / "tiny.toml")
    return tmp_path


def test_the_valid_base_of_the_hostile_files_passes(tmp_path):
    """The part the hostile files share is a correct game, so their errors come from the hostile part."""
    rules = _folder(tmp_path) / "ok.lf"
    rules.write_text(GAME.format(cards="tiny.toml") + ROUND)
    assert_clean_end(lfdsl("run", str(rules), "--quiet", "--seed", "1"), exits=(0,))


def test_extends_a_fifo(tmp_path):
    os.mkfifo(_folder(tmp_path) / "pipe.lf")
    (tmp_path / "r.lf").write_text('extends "pipe.lf"\n')
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(2,))


def test_cards_from_a_fifo(tmp_path):
    os.mkfifo(_folder(tmp_path) / "pipe.toml")
    (tmp_path / "r.lf").write_text(GAME.format(cards="pipe.toml") + ROUND)
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(2,))


def test_extends_a_directory(tmp_path):
    (_folder(tmp_path) / "sub").mkdir()
    (tmp_path / "r.lf").write_text('extends "sub"\n')
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(2,))


def test_cards_from_a_directory(tmp_path):
    (_folder(tmp_path) / "sub.toml").mkdir()
    (tmp_path / "r.lf").write_text(GAME.format(cards="sub.toml") + ROUND)
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(2,))


def test_extends_a_symbolic_link_out_of_the_folder(tmp_path):
    (_folder(tmp_path) / "link.lf").symlink_to("/etc/passwd")
    (tmp_path / "r.lf").write_text('extends "link.lf"\n')
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(2,), secrets=("root:",))


def test_the_rules_file_given_is_a_device():
    assert_clean_end(lfdsl("check", "/dev/zero"), exits=(2,), whole_file="/dev/zero")


def test_a_rules_file_of_five_megabytes(tmp_path):
    lines = [f"counter c{i} = {i}" for i in range(300_000)]
    text = GAME.format(cards="tiny.toml") + "\n".join(lines) + "\n" + ROUND
    assert len(text) > 5_000_000
    (_folder(tmp_path) / "big.lf").write_text(text)
    result = lfdsl("check", str(tmp_path / "big.lf"))
    assert_clean_end(result, exits=(2,), whole_file=tmp_path / "big.lf")
    assert "file too large" in result[2]


def test_a_card_file_of_five_megabytes(tmp_path):
    cards = "".join(f'[[Token]]\nname = "T{i}"\nvalue = {i}\n\n' for i in range(200_000))
    assert len(cards) > 5_000_000
    (_folder(tmp_path) / "big.toml").write_text(cards)
    (tmp_path / "r.lf").write_text(GAME.format(cards="big.toml") + ROUND)
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(2,))


def test_a_scenario_file_of_five_megabytes(tmp_path):
    (_folder(tmp_path) / "r.lf").write_text(GAME.format(cards="tiny.toml") + ROUND)
    steps = "".join(f'[[step]]\nnote = "step {i}"\nexpect = ["n >= 0"]\n\n' for i in range(150_000))
    assert len(steps) > 5_000_000
    (tmp_path / "big.toml").write_text('title = "big"\n\n' + steps)
    result = lfdsl("test", str(tmp_path / "r.lf"), str(tmp_path / "big.toml"))
    assert_clean_end(result, exits=(2,), whole_file=tmp_path / "big.toml")
    assert "file too large" in result[2]


def test_ten_thousand_nested_parentheses(tmp_path):
    text = GAME.format(cards="tiny.toml").replace("counter n = 0", "counter n = " + "(" * 10_000 + "0"
                                                  + ")" * 10_000) + ROUND
    (_folder(tmp_path) / "r.lf").write_text(text)
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(0, 2))  # accepted, or "nested too deeply"


def test_ten_thousand_nested_blocks(tmp_path):
    body = "if n >= 0 {\n" * 10_000 + "set n += 1\n" + "}\n" * 10_000
    text = GAME.format(cards="tiny.toml") + "setup {\n" + body + "}\n" + ROUND
    (_folder(tmp_path) / "r.lf").write_text(text)
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(0, 2))  # accepted, or "nested too deeply"


def test_a_sum_of_a_hundred_thousand_terms(tmp_path):
    """A long left-nested chain (1 + 1 + ...) is as deep as nesting for a recursive walk."""
    text = GAME.format(cards="tiny.toml").replace("counter n = 0", "counter n = " + " + ".join(["1"] * 100_000))
    (_folder(tmp_path) / "r.lf").write_text(text + ROUND)
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(0, 2), whole_file=tmp_path / "r.lf")


def test_a_sum_of_twenty_thousand_terms(tmp_path):
    """Within the size cap, a long chain is checked (or refused as too deep) quickly."""
    text = GAME.format(cards="tiny.toml").replace("counter n = 0", "counter n = " + " + ".join(["1"] * 20_000))
    (_folder(tmp_path) / "r.lf").write_text(text + ROUND)
    assert_clean_end(lfdsl("check", str(tmp_path / "r.lf")), exits=(0, 2))
