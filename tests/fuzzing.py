"""Seeded mutation fuzzing of the real rules files, card databases, scenarios, traces and saved games.

Shared by `tests/test_fuzz.py` (a small fixed-seed run in CI) and `benchmarks/fuzz.py` (thousands
of mutants per file kind). A mutant is the bytes of one real file with one to three mutations
applied; `make_mutants` is deterministic for a given seed. Traces and saved games are not kept in
the repository: they are made once per process by playing a few short games in a private copy of
the project (`lfdsl run --trace`, a `Table` saved after some decisions), with paths relative to
it. Each mutant runs the `lfdsl` command line in a forked child process of its own (`Runner`),
inside a private copy of the `rulesets/` and `cards/` folders in which the mutant replaces its
original, so `extends`, `cards` and a trace's or a save's paths resolve as they do in the
repository. A child that runs too long is killed, so a hang or a crash never stops the run, and
the outcome is sorted into one of `OUTCOMES`.
"""
from __future__ import annotations

import functools
import io
import json
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

KINDS = ("lf", "cards", "scenario", "trace", "save")

# Worst first: a mutant that passes `check` and then fails in `run` is classed by the worse one.
# `leak`: the output holds a line of /etc/passwd or a value of the environment (a mutant named a
# file the command must not echo); `internal-error`: lfdsl reported a fault of its own (exit 4).
OUTCOMES = ("leak", "hang", "traceback", "internal-error", "python-wording", "rejected-unpositioned",
            "rejected-positioned", "accepted")
BAD = ("leak", "hang", "traceback", "internal-error", "python-wording", "rejected-unpositioned")

# Set in every child's environment: it must never be printed.
CANARY_VARIABLE, CANARY = "LFDSL_FUZZ_CANARY", "lfdsl-fuzz-canary-9d27c4e1"
PASSWD = "root:"  # the first line of /etc/passwd
INTERNAL_ERROR = re.compile(r"^lfdsl: internal error\b", re.M)

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
    elif kind in ("trace", "save"):
        return list(_generated(kind))
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


# ---- traces and saved games: made by playing short games ------------------------------------------
# (file, the `lfdsl run` arguments that write it with `--trace`): short games, so that a replay is quick.
TRACE_SEEDS = (
    ("traces/duel-2.jsonl", ("rulesets/duel.lf", "--seed", "2", "--set", "fire_goal=3")),
    ("traces/duel-3.jsonl", ("rulesets/duel.lf", "--seed", "3", "--agents", "greedy,random", "--set", "fire_goal=4")),
    ("traces/base-4.jsonl", ("rulesets/base.lf", "--players", "2", "--seed", "4", "--agents", "greedy",
                             "--set", "goal=4")),
    ("traces/solo-5.jsonl", ("rulesets/solo.lf", "--seed", "5", "--set", "solo_goal=5")),
)
# (file, ruleset, parameters, players, seed, agents, decisions before saving); a person's seat
# always takes its first option.
SAVE_SEEDS = (
    ("saves/duel-7.json", "rulesets/duel.lf", {}, 2, 7, "human,random", 20),
    ("saves/duel-8.json", "rulesets/duel.lf", {"fire_goal": "5"}, 2, 8, "greedy,human", 15),
    ("saves/base-9.json", "rulesets/base.lf", {"goal": "4"}, 2, 9, "human,greedy", 12),
    ("saves/solo-3.json", "rulesets/solo.lf", {}, 1, 3, "human", 8),
)


def copy_project(dest: Path) -> None:
    """The folders a game reads, copied to `dest`: the private project the children run in."""
    shutil.copytree(ROOT / "rulesets", dest / "rulesets")
    shutil.copytree(ROOT / "cards", dest / "cards")
    shutil.copy(ROOT / "lfdsl.toml", dest / "lfdsl.toml")  # the project root


def _write_seeds(kind: str) -> None:
    """Runs in a forked child, in the private project: writes the seed files of `kind`."""
    from interpreter.tools.cli import main
    if kind == "trace":
        for rel, argv in TRACE_SEEDS:
            Path(rel).parent.mkdir(exist_ok=True)
            if main(["run", *argv, "--quiet", "--trace", rel]) != 0:
                raise RuntimeError(f"lfdsl run {' '.join(argv)} failed")
        return
    from interpreter.engine import Engine
    from interpreter.table.session import Table
    for rel, ruleset, params, players, seed, agents, stop in SAVE_SEEDS:
        Path(rel).parent.mkdir(exist_ok=True)
        table = Table(Engine.load(ruleset, None, params), players, seed, agents)
        table.advance()
        while not table.over and len(table.history) < stop:
            table.choose(0)
        table.save(rel)


@functools.cache
def _generated(kind: str) -> tuple[Source, ...]:
    """The seed traces or saved games, played in a forked child inside a private copy of the project
    (so their paths are relative to it, as in every mutant's tree); the same bytes every time."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    folder = Path(tempfile.mkdtemp(prefix="lfdsl-fuzz-seeds-"))
    try:
        copy_project(folder)
        log = folder / "seeds.log"
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                os.chdir(folder)
                out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(out, 1)
                os.dup2(out, 2)
                sys.stdout = sys.stderr = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8")
                _write_seeds(kind)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"the seed {kind} files could not be made:\n{_read(str(log))}")
        rels = [seed[0] for seed in (TRACE_SEEDS if kind == "trace" else SAVE_SEEDS)]
        return tuple(Source(kind, rel, (folder / rel).read_bytes()) for rel in rels)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


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


# ---- JSON structure mutators (traces and saved games) -------------------------------------------
class Raw(str):
    """JSON text written as it is into the document: what `json.dumps` cannot or will not write
    (5,000 digits, 100,000 levels of nesting)."""


HOSTILE_PATHS = ["/etc/passwd", "/proc/self/environ", "../../../../../../../../../../../../etc/passwd",
                 "rulesets/../../../../../../../../../../etc/passwd", "rulesets/duel.lf\x00.txt", "\x00", "/",
                 "", ".", "rulesets", "/dev/zero", "/dev/stdin", "/proc/self/fd/0", "~/.profile", "C:\\boot.ini",
                 "\u202erulesets/duel.lf", "rulesets/duel.lf/", "rulesets/" + "x" * 5000 + ".lf"]
HOSTILE_NUMBERS = [0, -1, 1, 2, 3, 5, 7, 99, 2 ** 31, 2 ** 63, -(2 ** 63) - 1, 10 ** 30, 1.5, -0.0, 1e308, True,
                   False, None, "2", "", [], {}, Raw("9" * 5000), Raw("-" + "9" * 5000), Raw("1e400"), Raw("NaN"),
                   Raw("Infinity"), Raw("-Infinity"), Raw("1" + "0" * 4300)]
HOSTILE_AGENTS = ["mcts:iterations=1000000000", "greedy:follow=" + "9" * 5000, "human,human,human", "human",
                  "human,human", "random,random", "", ",", " ", "nobody", "human:x=1", "mcts:iterations=0",
                  "mcts:iterations=-1", "mcts:c=nan", "mcts:c=1e400", "mcts:ms=999999999", "mcts:depth=1000000000",
                  "mcts:samples=1000000000", "greedy:follow=1000000000", "human,greedy:follow=" + "1" * 400,
                  ",".join(["random"] * 1000), "human,mcts:iterations=" + "9" * 4301, "human\x00,random",
                  "human,\u0663", "random:", "=,human", "human," + "x" * 10000]
SHA = "sha256:" + "0" * 64


def _data(doc: dict) -> dict:
    """Where a trace event keeps its fields (`data`); a saved game keeps them at the top."""
    return doc["data"] if isinstance(doc.get("data"), dict) else doc


def j_path(rng, doc):
    """A path of a trace's `setup` or of a save (ruleset, cards, search roots, the files' names)
    replaced by one outside the project, a device, a NUL..."""
    data = _data(doc)
    bad = rng.choice(HOSTILE_PATHS)
    slot = rng.choice(["ruleset", "ruleset", "cards", "search", "files", "files"])
    if slot == "search":
        data["search"] = [bad] if rng.random() < 0.7 else [bad] * 3 + ["/"]
    elif slot == "files" and isinstance(data.get("files"), dict) and data["files"]:
        files = data["files"]
        old = rng.choice(sorted(files))
        keep = files.pop(old) if rng.random() < 0.5 else SHA
        files[bad] = keep
        return f"files: {old!r} renamed {bad[:60]!r}"
    else:
        data[slot] = bad
    return f"set {slot} to {bad[:60]!r}"


def j_number(rng, doc):
    """The players, the seed, or any number of the document, set to one a reader may choke on."""
    data = _data(doc)
    keys = [k for k in ("players", "seed") if k in data]
    value = rng.choice(HOSTILE_NUMBERS)
    if keys and rng.random() < 0.7:
        key = rng.choice(keys)
        data[key] = value
        return f"set {key} to {_show_json(value)}"
    places = [p for p in _places(doc) if isinstance(p[0][p[1]], (int, float))] or _places(doc)
    cont, k, path = rng.choice(places)
    cont[k] = value
    return f"set {_where(path)} to {_show_json(value)}"


def j_files(rng, doc):
    """The recorded files and hashes: emptied, a hash changed, a file added or taken out."""
    data = _data(doc)
    files = data.get("files")
    if not isinstance(files, dict):
        data["files"] = {}
        return "set files to {}"
    choice = rng.randrange(5)
    if choice == 0 or not files:
        data["files"] = {}
        return "set files to {}"
    name = rng.choice(sorted(files))
    if choice == 1:
        files[name] = rng.choice([SHA, "", "sha256:", "md5:0", files[name].upper(), 0, None])
        return f"files: hash of {name!r} changed"
    if choice == 2:
        del files[name]
        return f"files: {name!r} taken out"
    extra = rng.choice(["lfdsl.toml", "cards/kodama.toml", "rulesets/solo.lf", "/etc/passwd", "/proc/self/environ"])
    files[extra] = rng.choice([SHA, files[name]])
    return f"files: {extra!r} added"


def j_deep(rng, doc):
    """A value replaced by deeply nested arrays or objects."""
    cont, k, path = rng.choice(_places(doc))
    n = rng.choice([100, 1000, 100_000])
    cont[k] = Raw("[" * n + "]" * n) if rng.random() < 0.5 else Raw('{"a":' * n + "1" + "}" * n)
    return f"set {_where(path)} to {n} levels of nesting"


def j_agents(rng, doc):
    """A saved game's agents: a bot whose parameters cost the earth, seats that do not match..."""
    value = rng.choice(HOSTILE_AGENTS + [0, None, ["human", "random"]])
    doc["agents"] = value
    return f"set agents to {_show_json(value)}"


def j_history(rng, doc):
    """A saved game's choices: an index out of range or of another type, cut short or made long."""
    history = doc.get("history")
    if not isinstance(history, list) or not history:
        doc["history"] = rng.choice([[], [0] * 5000, [-1], None, "0", {}])
        return "set history to another value"
    choice = rng.randrange(4)
    if choice == 0:
        i = rng.randrange(len(history))
        history[i] = rng.choice([99, 1000, -1, -1000, 2 ** 63, 10 ** 30, 1.5, True, None, "0", [0]])
        return f"history[{i}] set to {_show_json(history[i])}"
    if choice == 1:
        del history[rng.randrange(len(history)):]
        return f"history cut to {len(history)} choices"
    if choice == 2:
        history.extend([rng.choice([0, 1, 99])] * rng.choice([1, 50, 5000]))
        return f"history made {len(history)} choices long"
    doc["history"] = [rng.randrange(4) for _ in history]
    return "history shuffled"


def j_choice(rng, doc):
    """A trace's choice event: the option taken changed to another, to one not offered, to a number."""
    data = _data(doc)
    options = data.get("options") if isinstance(data.get("options"), list) else []
    value = rng.choice(options + ["no such option", "", 0, 99, -1, 2 ** 63, None, True, ["reveal"], {"a": 1}])
    data["choice"] = value
    return f"choice set to {_show_json(value)}"


def j_format(rng, doc):
    """A saved game's format line: another version, another spelling, another type."""
    value = rng.choice(["lfdsl saved game 2", "lfdsl saved game 0", "", 1, None, "LFDSL SAVED GAME 1"])
    doc["format"] = value
    return f"set format to {_show_json(value)}"


def _show_json(value) -> str:
    text = value if isinstance(value, Raw) else repr(value)
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text)} characters)"


GENERIC_MUTATORS = [t_change_type, t_drop_key, t_rename_key, t_add_unknown_key, t_swap_value, t_empty_or_repeat]
SETUP_MUTATORS = [j_path, j_path, j_number, j_number, j_files, j_deep] + GENERIC_MUTATORS
CHOICE_MUTATORS = [j_choice, j_choice, j_choice, j_deep] + GENERIC_MUTATORS
SAVE_MUTATORS = [j_path, j_path, j_number, j_number, j_files, j_deep, j_agents, j_agents, j_history, j_history,
                 j_format] + GENERIC_MUTATORS


def dump_json(doc, **options) -> str:
    """`json.dumps`, with every `Raw` value written as its own text."""
    raws: list[Raw] = []

    def mark(value):
        if isinstance(value, Raw):
            raws.append(value)
            return f"\x01raw{len(raws) - 1}\x01"
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        return value
    text = json.dumps(mark(doc), **options)
    for i, raw in enumerate(raws):
        text = text.replace(json.dumps(f"\x01raw{i}\x01"), raw, 1)
    return text


def _parse_json(text: bytes):
    try:
        return json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # an earlier mutation broke it
        return None


def _trace_mutation(rng, data):
    """A JSON-aware change of one event of a trace: its `setup` event half of the time, a choice
    event most of the rest."""
    lines = data.split(b"\n")
    choices = [i for i, line in enumerate(lines) if b'"event":"choice"' in line]
    roll = rng.random()
    if roll < 0.5:
        n, pool = 0, SETUP_MUTATORS
    elif roll < 0.8 and choices:
        n, pool = rng.choice(choices), CHOICE_MUTATORS
    else:
        n, pool = rng.randrange(len(lines)), GENERIC_MUTATORS
    event = _parse_json(lines[n])
    if not isinstance(event, dict) or not event:
        return None
    m = rng.choice(pool)
    what = m(rng, event)
    # surrogatepass: a lone `\ud800` escape, read back from an earlier mutation, is written as it came
    lines[n] = dump_json(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return b"\n".join(lines), f"{m.__name__[2:]}: line {n + 1}: {what}"


def _save_mutation(rng, data):
    """A JSON-aware change of a saved game, written back as `Table.save` writes it."""
    doc = _parse_json(data)
    if not isinstance(doc, dict) or not doc:
        return None
    m = rng.choice(SAVE_MUTATORS)
    what = m(rng, doc)
    return dump_json(doc, indent=1).encode("utf-8", "surrogatepass") + b"\n", f"{m.__name__[2:]}: {what}"


def mutate(rng: random.Random, kind: str, data: bytes) -> tuple[bytes, str]:
    """One mutation of `data`; for TOML files, half of them are structure-aware, for traces and
    saved games 60%."""
    if not data:
        return b"\n", "empty file"
    if kind in ("trace", "save"):
        if rng.random() < 0.6:
            done = (_trace_mutation if kind == "trace" else _save_mutation)(rng, data)
            if done is not None:
                return done
    elif kind != "lf" and rng.random() < 0.5:
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
    leak: str = ""  # what secret the output showed (the result's stderr is then never printed)


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
    if m.kind == "trace":
        return m.source, [["replay", m.source]]
    if m.kind == "save":  # the child loads it as `play --resume` does, without opening the app
        return m.source, [["play", "--resume", m.source]]
    game = Path(m.source).parent.name
    rel = f"scenarios/{Path(m.source).name}"
    return rel, [["test", f"rulesets/{game}.lf", rel]]


@functools.cache
def secrets() -> tuple[str, ...]:
    """What no command may print: the canary, the first line of /etc/passwd, and each `NAME=value`
    of this process's environment as /proc/self/environ gives it to a forked child (long enough
    not to turn up by chance)."""
    try:
        block = Path("/proc/self/environ").read_bytes().decode("utf-8", "replace")
    except OSError:
        block = ""
    return (CANARY, PASSWD, *sorted({e for e in block.split("\0") if len(e) >= 12 and "=" in e}))


def leaked(text: str) -> str | None:
    """The secret `text` shows, if any."""
    return next((s for s in secrets() if s in text), None)


def _secret_name(secret: str | None) -> str:
    return {None: "", CANARY: "the canary", PASSWD: "/etc/passwd"}.get(secret, "the environment")


def shown(r: "Result") -> str:
    """The standard error of a result as reports may print it: withheld when it leaked a secret
    (the environment may hold a credential, and a truncated line hides it from `leaked`)."""
    if r.outcome == "leak":
        return f"(withheld: the output shows {r.leak})"
    return r.stderr


def classify(exit_code: int | None, stderr: str, timed_out: bool, stdout: str = "") -> str:
    """Sort one command's ending into an outcome."""
    if leaked(stdout) or leaked(stderr):
        return "leak"
    if timed_out:
        return "hang"
    if exit_code not in (0, 1, 2, 3, 4) or "Traceback (most recent call last)" in stderr:
        return "traceback"
    if exit_code == 4 or INTERNAL_ERROR.search(stderr):
        return "internal-error"
    if PYTHON_WORDING.search(stderr):
        return "python-wording"
    if exit_code in (0, 1):
        return "accepted"
    first = stderr.lstrip("\n").split("\n", 1)[0]
    return "rejected-positioned" if POSITIONED.match(first) else "rejected-unpositioned"


def _cli(argv: list[str]) -> int:
    """`lfdsl ARGV`; `play` stops once the game is loaded (its app would wait for a person)."""
    from interpreter.tools import cli
    if argv[0] != "play":
        return cli.main(argv)

    def load(args) -> int:
        cli.open_table(args)
        return cli.EXIT_OK
    return cli.run_command(load, cli.build_parser().parse_args(argv))


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
        os.environ[CANARY_VARIABLE] = CANARY
        try:
            code = _cli(argv)
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
    millisecond instead of the half second of a fresh `python -m interpreter.tools.cli`."""

    def __init__(self, workers: int = 2, timeout: float = 10.0, cpu_seconds: int = 8,
                 memory_bytes: int = 3 * 2 ** 30, keep: str | Path | None = None):
        self.workers = max(1, workers)
        self.timeout = timeout
        self.cpu_seconds = cpu_seconds
        self.memory_bytes = memory_bytes
        self.keep = Path(keep) if keep else None
        self.base = Path(tempfile.mkdtemp(prefix="lfdsl-fuzz-"))
        self._template = self.base / "template"
        copy_project(self._template)
        for folder in ("scenarios", "traces", "saves"):
            (self._template / folder).mkdir()
        self._warm()

    def _warm(self) -> None:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from interpreter.engine import Engine
        from interpreter.tools.replay import replay  # noqa: F401  (imported once, not in every child)
        from interpreter.table.session import Table  # noqa: F401
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
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
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
            outcome = classify(exit_code, _read(out_path + ".err"), cpu_killed, _read(out_path + ".out"))
            cmds = steps_of[slot][0]
            if outcome == "accepted" and step + 1 < len(cmds):
                pid2, out2 = self._start(cmds[step + 1], tree, step + 1)
                running[pid2] = (slot, m, tree, step + 1, cmds[step + 1], out2, time.monotonic())
                continue
            results[slot] = self._finish(slot, m, tree, argv, exit_code, out_path, cpu_killed, steps_of)
            progress and progress(results[slot])
        return results

    def _finish(self, slot, m, tree, argv, exit_code, out_path, timed_out, steps_of) -> Result:
        stderr, stdout = _read(out_path + ".err"), _read(out_path + ".out")
        outcome = classify(exit_code, stderr, timed_out, stdout)
        seconds = time.perf_counter() - steps_of.pop(slot)[1]
        kept = None
        if outcome in BAD and self.keep is not None:
            dest = self.keep / f"{m.kind}-{m.index}"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(tree, dest, ignore=shutil.ignore_patterns(".cmd*"))
            kept = str(dest)
        shutil.rmtree(tree, ignore_errors=True)
        return Result(m, outcome, ("lfdsl", *argv), exit_code, stderr, seconds, kept,
                      _secret_name(leaked(stderr) or leaked(stdout)))


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
    if r.outcome == "leak":
        return f"leak: {shown(r)}: {r.argv[1]}"
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    if r.outcome == "traceback":
        frames = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
        inner = next((f for f in reversed(frames) if "/site-packages/" not in f and "/lib/python" not in f),
                     frames[-1] if frames else "")
        inner = re.sub(r'File ".*/((?:interpreter|rulesdsl)/[^"]+)"', r"\1", inner)
        return f"traceback: {lines[-1] if lines else f'exit {r.exit_code}'} @ {inner}"
    if r.outcome == "python-wording":
        first = next((ln for ln in lines if PYTHON_WORDING.search(ln)), lines[0] if lines else "")
    elif r.outcome == "internal-error":
        first = next((ln for ln in lines if INTERNAL_ERROR.match(ln)), lines[0] if lines else "")
        if "(a fault of lfdsl" in first:  # an InternalError: its own message is the line before
            first = lines[max(0, lines.index(first) - 1)] + " / " + first
    else:
        first = lines[0] if lines else ""
    first = re.sub(r"^lfdsl: ", "", first)
    first = re.sub(r"^\S+\.(?:lf|toml|jsonl|json)(?::\d+:\d+)?", "<file>", first)
    first = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", "<x>", first)
    first = re.sub(r"\d+", "N", first)
    # The value a mutant put in (a number of any kind, a nested list) names no other bug.
    first = re.sub(r"\bN(?:\.N)?(?:e[+-]?N)?\b|\b(?:True|False|None|inf|nan)\b", "N", first)
    first = re.sub(r"[\[{][\[\]{}<x>:, N]*[\]}]", "<value>", first)
    first = first.split("; this is a fault of lfdsl")[0]  # the rest of the internal error's line is always the same
    return f"{r.outcome}: {first[:160]}"
