"""Seeded mutation fuzzing of the real rules files, card databases and scenarios.

Shared by `tests/test_fuzz.py` (a small fixed-seed run in CI) and `benchmarks/fuzz.py` (thousands
of mutants per file kind). A mutant is the bytes of one real file with one to three mutations
applied; `make_mutants` is deterministic for a given seed. Each mutant runs the `lfdsl` command
line in a forked child process of its own (`Runner`), inside a private copy of the `rulesets/`
and `cards/` folders in which the mutant replaces its original, so `extends` and `cards` paths
resolve as they do in the repository. A child that runs too long is killed, so a hang or a crash
never stops the run, and the outcome is sorted into one of `OUTCOMES`.
"""
from __future__ import annotations

import io
import os
import random
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
import tomllib
import traceback
from pathlib import Path

import attrs
import tomli_w

ROOT = Path(__file__).resolve().parent.parent

KINDS = ("lf", "cards", "scenario")

# Worst first: a mutant that passes `check` and then fails in `run` is classed by the worse one.
OUTCOMES = ("hang", "traceback", "python-wording", "rejected-unpositioned", "rejected-positioned",
            "accepted")
BAD = ("hang", "traceback", "python-wording", "rejected-unpositioned")

POSITIONED = re.compile(r"^[^:\s][^:]*:\d+:\d+: ")
# Words that only Python's own exceptions put in a message: a user should never read them.
PYTHON_WORDING = re.compile(
    r"Traceback \(most recent call last\)|\b(?:ValueError|KeyError|TypeError|IndexError|AttributeError|"
    r"RecursionError|OverflowError|ZeroDivisionError|UnicodeDecodeError|MemoryError|NoneType)\b|"
    r"not supported between instances|object has no attribute|\[Errno \d+\]|\bErrno\b|"
    r"unhashable type|invalid literal for int\(\)|maximum recursion depth|object is not subscriptable|"
    r"object is not iterable|takes \d+ positional argument|unsupported operand type|codec can't decode")

# The ruleset each card database belongs to (its cards are read through that ruleset's `cards`).
CARD_RULESET = {"base.toml": "base.lf", "duel.toml": "duel.lf", "kodama.toml": "kodama.lf",
                "solo.toml": "solo.lf"}


# ---- the inputs -------------------------------------------------------------------------------
@attrs.frozen
class Source:
    """One real input file: its kind, its path relative to the repository, its bytes."""

    kind: str
    rel: str
    data: bytes


def sources(kind: str) -> list[Source]:
    """The real files of one kind, in a stable order."""
    if kind == "lf":
        paths = sorted((ROOT / "rulesets").glob("*.lf"))
    elif kind == "cards":
        paths = sorted(p for p in (ROOT / "cards").glob("*.toml") if p.name in CARD_RULESET)
    elif kind == "scenario":
        paths = sorted((ROOT / "tests" / "scenarios").glob("*/*.toml"))
    else:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    return [Source(kind, str(p.relative_to(ROOT)), p.read_bytes()) for p in paths]


@attrs.frozen
class Mutant:
    """A mutated copy of one source file and how it was made."""

    kind: str
    index: int
    source: str
    data: bytes
    description: str


# ---- text mutators ----------------------------------------------------------------------------
TOKEN = re.compile(rb'[A-Za-z_][A-Za-z0-9_]*|\d+|"[^"\n]*"|\S')
NUMBER = re.compile(rb"\d+")
ODD_CHARS = [b"{", b"}", b"(", b")", b"[", b"]", b'"', b"'", b"=", b":", b",", b".", b"#", b"\n",
             b"\\", b"-", b"+", b"*", b"/", b"<", b">", b"!", b"$", b"@", b"\t", b" ", b"\x00",
             b"\r", b"\xc2\xa0", b"\xe2\x80\x8b", b"\xef\xbb\xbf", b"\xc3\xa9"]
HUGE_NUMBERS = [b"9223372036854775808", b"18446744073709551616", b"1" + b"0" * 40, b"9" * 400,
                b"9" * 5000, b"-9223372036854775809", b"1e400", b"0x7fffffff"]
NON_ASCII_DIGITS = ["\u0663", "\uff13", "\u00b2", "\u0967", "\u2463", "\U0001d7d1"]
INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf0\x28\x8c\xbc", b"\x80",
                b"\xc0\xaf"]
BRACKETS = [b"{", b"}", b"(", b")", b"[", b"]", b'"', b"'", b'"""']


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _join(lines: list[bytes]) -> bytes:
    return b"\n".join(lines)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _show(b: bytes, width: int = 30) -> str:
    text = b.decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= width else text[:width] + "...")


def m_delete_line(rng, data):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    return _join(lines[:i] + lines[i + 1:]), f"delete line {i + 1}"


def m_duplicate_line(rng, data):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    return _join(lines[:i + 1] + [lines[i]] + lines[i + 1:]), f"duplicate line {i + 1}"


def m_swap_lines(rng, data):
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return _join(lines), f"swap lines {i + 1} and {j + 1}"


def m_delete_char(rng, data):
    i = rng.randrange(len(data))
    return data[:i] + data[i + 1:], f"delete char {_show(data[i:i + 1])} at line {_line_of(data, i)}"


def m_insert_char(rng, data):
    i = rng.randrange(len(data) + 1)
    c = rng.choice(ODD_CHARS)
    return data[:i] + c + data[i:], f"insert {_show(c)} at line {_line_of(data, i)}"


def _tokens(data):
    return list(TOKEN.finditer(data))


def m_delete_token(rng, data):
    t = rng.choice(_tokens(data))
    return data[:t.start()] + data[t.end():], f"delete token {_show(t.group())} at line {_line_of(data, t.start())}"


def m_insert_token(rng, data):
    toks = _tokens(data)
    t, where = rng.choice(toks), rng.choice(toks)
    i = rng.choice([where.start(), where.end()])
    return (data[:i] + b" " + t.group() + b" " + data[i:],
            f"insert token {_show(t.group())} at line {_line_of(data, i)}")


def m_replace_token(rng, data):
    toks = _tokens(data)
    t, other = rng.choice(toks), rng.choice(toks)
    return (data[:t.start()] + other.group() + data[t.end():],
            f"replace token {_show(t.group())} by {_show(other.group())} at line {_line_of(data, t.start())}")


def _number(rng, data):
    nums = list(NUMBER.finditer(data))
    return rng.choice(nums) if nums else None


def m_flip_digit(rng, data):
    n = _number(rng, data)
    if n is None:
        return m_insert_char(rng, data)
    i = rng.randrange(n.start(), n.end())
    d = str(rng.choice([c for c in range(10) if c != data[i] - 48])).encode()
    return data[:i] + d + data[i + 1:], f"flip digit at line {_line_of(data, i)} to {d.decode()}"


def m_huge_number(rng, data):
    n = _number(rng, data)
    big = rng.choice(HUGE_NUMBERS)
    if n is None:
        return m_insert_char(rng, data)
    return (data[:n.start()] + big + data[n.end():],
            f"replace number {_show(n.group())} by {_show(big)} at line {_line_of(data, n.start())}")


def m_non_ascii_digit(rng, data):
    n = _number(rng, data)
    if n is None:
        return m_insert_char(rng, data)
    i = rng.randrange(n.start(), n.end())
    d = rng.choice(NON_ASCII_DIGITS)
    return (data[:i] + d.encode() + data[i + 1:],
            f"digit at line {_line_of(data, i)} replaced by {d!r} (U+{ord(d):04X})")


def m_unbalance(rng, data):
    present = [b for b in BRACKETS if b in data]
    if present and rng.random() < 0.5:
        b = rng.choice(present)
        spots = [m.start() for m in re.finditer(re.escape(b), data)]
        i = rng.choice(spots)
        return data[:i] + data[i + len(b):], f"delete {_show(b)} at line {_line_of(data, i)}"
    b = rng.choice(BRACKETS)
    i = rng.randrange(len(data) + 1)
    return data[:i] + b + data[i:], f"insert unbalanced {_show(b)} at line {_line_of(data, i)}"


def m_truncate(rng, data):
    i = rng.randrange(len(data))
    return data[:i], f"truncate at byte {i} (line {_line_of(data, i)})"


def m_invalid_utf8(rng, data):
    i = rng.randrange(len(data) + 1)
    b = rng.choice(INVALID_UTF8)
    return data[:i] + b + data[i:], f"insert invalid UTF-8 {b!r} at line {_line_of(data, i)}"


def m_duplicate_block(rng, data):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    j = min(len(lines), i + rng.randint(2, 15))
    k = rng.randrange(len(lines) + 1)
    return _join(lines[:k] + lines[i:j] + lines[k:]), f"copy lines {i + 1}-{j} before line {k + 1}"


TEXT_MUTATORS = [m_delete_line, m_duplicate_line, m_swap_lines, m_delete_char, m_insert_char,
                 m_delete_token, m_insert_token, m_replace_token, m_flip_digit, m_huge_number,
                 m_non_ascii_digit, m_unbalance, m_truncate, m_invalid_utf8, m_duplicate_block]


# ---- TOML structure mutators ------------------------------------------------------------------
def _places(doc, path=()):
    """Every (container, key, path) under the document, tables and arrays included."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for k, v in items:
        out.append((doc, k, path + (k,)))
        if isinstance(v, (dict, list)):
            out.extend(_places(v, path + (k,)))
    return out


def _where(path) -> str:
    return ".".join(str(p) for p in path) or "(top)"


def _other_type(rng, value):
    choices = [0, -1, 2 ** 63, -(2 ** 63) - 1, 2 ** 70, 1.5, float("inf"), float("nan"), True, "",
               "two", "\u0663", [], [1, "a"], {}, {"x": 1}]
    choices = [c for c in choices if type(c) is not type(value)]
    return rng.choice(choices)


def t_change_type(rng, doc):
    places = [p for p in _places(doc)]
    cont, k, path = rng.choice(places)
    new = _other_type(rng, cont[k])
    cont[k] = new
    return f"set {_where(path)} to {new!r}"


def t_drop_key(rng, doc):
    places = [p for p in _places(doc) if isinstance(p[0], dict)]
    cont, k, path = rng.choice(places)
    del cont[k]
    return f"drop key {_where(path)}"


def _typo(rng, key: str) -> str:
    if not key:
        return "x"
    i = rng.randrange(len(key))
    return rng.choice([key[:i] + key[i + 1:], key[:i] + key[i] * 2 + key[i + 1:], key.upper(),
                       key + "s", key[:i] + "\u00e9" + key[i + 1:]]) or "x"


def t_rename_key(rng, doc):
    places = [p for p in _places(doc) if isinstance(p[0], dict)]
    cont, k, path = rng.choice(places)
    new = _typo(rng, k)
    if new in cont:
        new += "_x"
    cont[new] = cont.pop(k)
    return f"rename key {_where(path)} to {new!r}"


def t_add_unknown_key(rng, doc):
    tables = [doc] + [c[k] for c, k, _ in _places(doc) if isinstance(c[k], dict)]
    t = rng.choice(tables)
    name = rng.choice(["extra", "unknown_field", "Name", "__class__", "__init__", "step", "start",
                       "", "a b", "\u00e9t\u00e9"])
    t[name] = rng.choice([1, "x", True, [1], {"y": 2}])
    return f"add unknown key {name!r}"


def t_swap_value(rng, doc):
    places = [p for p in _places(doc) if not isinstance(p[0][p[1]], (dict, list))]
    if len(places) < 2:
        return t_change_type(rng, doc)
    (c1, k1, p1), (c2, k2, p2) = rng.sample(places, 2)
    c1[k1] = c2[k2]
    return f"set {_where(p1)} to the value of {_where(p2)} ({c2[k2]!r})"


def t_empty_or_repeat(rng, doc):
    lists = [(c, k, p) for c, k, p in _places(doc) if isinstance(c[k], list)]
    if not lists:
        return t_drop_key(rng, doc)
    c, k, p = rng.choice(lists)
    if c[k] and rng.random() < 0.5:
        c[k] = c[k] * rng.choice([2, 50])
        return f"repeat the list {_where(p)}"
    c[k] = []
    return f"empty the list {_where(p)}"


TOML_MUTATORS = [t_change_type, t_drop_key, t_rename_key, t_add_unknown_key, t_swap_value,
                 t_empty_or_repeat]


def _toml_mutation(rng, data):
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):  # TOMLDecodeError, or a number too long to convert
        return None
    if not doc:
        return None
    m = rng.choice(TOML_MUTATORS)
    what = m(rng, doc)
    try:
        out = tomli_w.dumps(doc).encode("utf-8")
    except (TypeError, ValueError):  # a value TOML cannot write (an int out of 64 bits, say)
        return None
    return out, f"{m.__name__[2:]}: {what}"


def mutate(rng: random.Random, kind: str, data: bytes) -> tuple[bytes, str]:
    """One mutation of `data`; for TOML files, half of them are structure-aware."""
    if not data:
        return b"\n", "empty file"
    if kind != "lf" and rng.random() < 0.5:
        done = _toml_mutation(rng, data)
        if done is not None:
            return done
    m = rng.choice(TEXT_MUTATORS)
    out, what = m(rng, data)
    return out, f"{m.__name__[2:]}: {what}"


def make_mutants(kind: str, count: int, seed: int) -> list[Mutant]:
    """`count` mutants of the real files of `kind`, the same ones for the same seed."""
    files = sources(kind)
    out = []
    for i in range(count):
        rng = random.Random(f"{seed}:{kind}:{i}")
        src = files[i % len(files)]
        data, steps = src.data, []
        for _ in range(1 if rng.random() < 0.8 else rng.randint(2, 3)):
            data, what = mutate(rng, kind, data)
            steps.append(what)
        out.append(Mutant(kind, i, src.rel, data, "; ".join(steps)))
    return out


# ---- the oracle -------------------------------------------------------------------------------
@attrs.frozen
class Result:
    """What one mutant did: its outcome and, for the worst command, how it ended."""

    mutant: Mutant
    outcome: str
    argv: tuple[str, ...]
    exit_code: int | None
    stderr: str
    seconds: float
    tree: str | None = None


def commands(m: Mutant) -> tuple[str, list[list[str]]]:
    """Where the mutant goes in the copied tree, and the command lines to run, in order.
    The second command (`run`, for rules and cards) runs only if the first one accepts."""
    if m.kind == "lf":
        rel = m.source
        return rel, [["check", rel], ["run", rel, "--quiet", "--seed", "1"]]
    if m.kind == "cards":
        name = Path(m.source).name
        ruleset = f"rulesets/{CARD_RULESET[name]}"
        return m.source, [["check", ruleset], ["run", ruleset, "--quiet", "--seed", "1"]]
    game = Path(m.source).parent.name
    rel = f"scenarios/{Path(m.source).name}"
    return rel, [["test", f"rulesets/{game}.lf", rel]]


def classify(exit_code: int | None, stderr: str, timed_out: bool) -> str:
    """Sort one command's ending into an outcome."""
    if timed_out:
        return "hang"
    if exit_code not in (0, 1, 2, 3) or "Traceback (most recent call last)" in stderr:
        return "traceback"
    if PYTHON_WORDING.search(stderr):
        return "python-wording"
    if exit_code in (0, 1):
        return "accepted"
    first = stderr.lstrip("\n").split("\n", 1)[0]
    return "rejected-positioned" if POSITIONED.match(first) else "rejected-unpositioned"


def _child(argv: list[str], tree: str, out_path: str, cpu_seconds: int, memory_bytes: int) -> None:
    """Runs in the forked child: the CLI with fds 1 and 2 sent to one file each; never returns."""
    code = 70
    try:
        os.chdir(tree)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        out = os.open(out_path + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        err = os.open(out_path + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8", errors="replace")
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), encoding="utf-8", errors="replace")
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        from interpreter.cli import main
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except BaseException:  # what escapes main is exactly what the fuzzer looks for
            traceback.print_exc()
            code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) and 0 <= code < 256 else 70)


class Runner:
    """Runs mutants in forked children, `workers` at a time, each under a wall-clock timeout and
    a CPU limit. The parent imports and warms the interpreter once, so a child starts in about a
    millisecond instead of the half second of a fresh `python -m interpreter.cli`."""

    def __init__(self, workers: int = 2, timeout: float = 10.0, cpu_seconds: int = 8,
                 memory_bytes: int = 3 * 2 ** 30, keep: str | Path | None = None):
        self.workers = max(1, workers)
        self.timeout = timeout
        self.cpu_seconds = cpu_seconds
        self.memory_bytes = memory_bytes
        self.keep = Path(keep) if keep else None
        self.base = Path(tempfile.mkdtemp(prefix="lfdsl-fuzz-"))
        self._template = self.base / "template"
        shutil.copytree(ROOT / "rulesets", self._template / "rulesets")
        shutil.copytree(ROOT / "cards", self._template / "cards")
        shutil.copy(ROOT / "lfdsl.toml", self._template / "lfdsl.toml")  # the project root
        (self._template / "scenarios").mkdir()
        self._warm()

    def _warm(self) -> None:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from interpreter.engine import Engine
        Engine.load(self._template / "rulesets" / "base.lf")

    def close(self) -> None:
        """Remove the temporary trees."""
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _tree_for(self, m: Mutant) -> tuple[Path, str]:
        tree = self.base / f"{m.kind}-{m.index}"
        shutil.copytree(self._template, tree)
        rel, _ = commands(m)
        (tree / rel).write_bytes(m.data)
        return tree, rel

    def _start(self, argv, tree: Path, step: int = 0):
        out_path = str(tree / f".cmd{step}")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(argv, str(tree), out_path, self.cpu_seconds, self.memory_bytes)
        return pid, out_path

    def run(self, mutants, progress=None) -> list[Result]:
        """Every mutant's result, in the order given."""
        pending = list(enumerate(mutants))[::-1]
        running = {}  # pid -> (slot, mutant, tree, step, argv, out_path, started)
        steps_of = {}
        results: list[Result | None] = [None] * len(mutants)
        while pending or running:
            while pending and len(running) < self.workers:
                slot, m = pending.pop()
                tree, _ = self._tree_for(m)
                cmds = commands(m)[1]
                steps_of[slot] = (cmds, time.perf_counter())
                pid, out_path = self._start(cmds[0], tree)
                running[pid] = (slot, m, tree, 0, cmds[0], out_path, time.monotonic())
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                now = time.monotonic()
                for p, (slot, m, tree, step, argv, out_path, started) in list(running.items()):
                    if now - started > self.timeout:
                        os.kill(p, signal.SIGKILL)
                        os.waitpid(p, 0)
                        del running[p]
                        results[slot] = self._finish(slot, m, tree, argv, None, out_path, True, steps_of)
                        progress and progress(results[slot])
                time.sleep(0.002)
                continue
            if pid not in running:
                continue
            slot, m, tree, step, argv, out_path, started = running.pop(pid)
            code = os.waitstatus_to_exitcode(status)
            cpu_killed = code in (-signal.SIGXCPU, -signal.SIGKILL)
            exit_code = None if cpu_killed else code
            outcome = classify(exit_code, _read(out_path + ".err"), cpu_killed)
            cmds = steps_of[slot][0]
            if outcome == "accepted" and step + 1 < len(cmds):
                pid2, out2 = self._start(cmds[step + 1], tree, step + 1)
                running[pid2] = (slot, m, tree, step + 1, cmds[step + 1], out2, time.monotonic())
                continue
            results[slot] = self._finish(slot, m, tree, argv, exit_code, out_path, cpu_killed, steps_of)
            progress and progress(results[slot])
        return results

    def _finish(self, slot, m, tree, argv, exit_code, out_path, timed_out, steps_of) -> Result:
        stderr = _read(out_path + ".err")
        outcome = classify(exit_code, stderr, timed_out)
        seconds = time.perf_counter() - steps_of.pop(slot)[1]
        kept = None
        if outcome in BAD and self.keep is not None:
            dest = self.keep / f"{m.kind}-{m.index}"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(tree, dest, ignore=shutil.ignore_patterns(".cmd*"))
            kept = str(dest)
        shutil.rmtree(tree, ignore_errors=True)
        return Result(m, outcome, ("lfdsl", *argv), exit_code, stderr, seconds, kept)


def _read(path: str) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def tally(results) -> dict:
    """Counts per outcome and the share of rejections that carry a position."""
    counts = {o: 0 for o in OUTCOMES}
    for r in results:
        counts[r.outcome] += 1
    rejected = counts["rejected-positioned"] + counts["rejected-unpositioned"]
    counts["mutants"] = len(results)
    counts["positioned_share"] = round(counts["rejected-positioned"] / rejected, 4) if rejected else 1.0
    return counts


def signature(r: Result) -> str:
    """A short key grouping results that are one bug: the innermost frame of a traceback, or
    the first stderr line with file names, numbers and quoted names taken out."""
    if r.outcome == "hang":
        return f"hang: {r.argv[1]}"
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    if r.outcome == "traceback":
        frames = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
        inner = next((f for f in reversed(frames) if "/site-packages/" not in f and "/lib/python" not in f),
                     frames[-1] if frames else "")
        inner = re.sub(r'File ".*/((?:interpreter|rulesdsl)/[^"]+)"', r"\1", inner)
        return f"traceback: {lines[-1] if lines else f'exit {r.exit_code}'} @ {inner}"
    first = next((ln for ln in lines if PYTHON_WORDING.search(ln)), lines[0] if lines else "") \
        if r.outcome == "python-wording" else (lines[0] if lines else "")
    first = re.sub(r"^lfdsl: ", "", first)
    first = re.sub(r"^\S+\.(?:lf|toml)(?::\d+:\d+)?", "<file>", first)
    first = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", "<x>", first)
    first = re.sub(r"\d+", "N", first)
    return f"{r.outcome}: {first[:160]}"
