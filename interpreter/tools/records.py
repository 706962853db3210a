"""Reading back what lfdsl wrote: the JSON of a trace's events and of a saved game.

Such a file is untrusted data, like a ruleset: it may have been edited or made by someone else. Its
JSON is parsed only within bounds (nesting, digits of a number), every value is checked for its
type before use, and every mistake is reported at its place in the file (`file:line:col`, the
line, a caret under the value). The files it names are checked with the rules of `rulesdsl.files`
against the project of the file that names them, never against folders the file itself lists.
"""
from __future__ import annotations

import itertools
import json
import os
import re

from rulesdsl.errors import Diagnostic, LanguageError, visible
from rulesdsl.files import FileRefused, Project, check_name, check_readable, named_path
from rulesdsl.limits import MAX_INT, MIN_INT

from ..engine import Engine
from ..compile.params import ParamError

MAX_DEPTH = 16    # arrays and objects inside one another; a trace event or a saved game needs 3
MAX_DIGITS = 20   # digits of one whole number (a 64-bit value has at most 20)

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET_OR_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_PIECE = 1 << 16
_LONG_NUMBER = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?[0-9]{%d,}' % (MAX_DIGITS + 1), re.S)
_SCALAR = re.compile(r'[^\s\[\]{},:"]+')
_SPACE = re.compile(r"[ \t\r\n]*")


class _LongNumber(Exception):
    """A whole number of more than MAX_DIGITS digits, met while parsing."""


def _whole(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _LongNumber
    return int(digits)


def too_deep(text: str) -> int | None:
    """The offset of the first bracket nested deeper than MAX_DEPTH, or None.

    Cheap for the shallow texts lfdsl writes; otherwise the brackets outside strings are counted
    piece by piece (running sums in C), so a long text costs little and little memory."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    brackets = _NOT_BRACKET.sub("", _STRING.sub('""', text))
    depth, seen = 0, 0
    for i in range(0, len(brackets), _PIECE):
        depths = list(itertools.accumulate(map(_STEP.__getitem__, brackets[i:i + _PIECE]), initial=depth))[1:]
        if max(depths) > MAX_DEPTH:
            k = seen + depths.index(MAX_DEPTH + 1)  # the bracket that opens one level too many
            marks = (m for m in _BRACKET_OR_STRING.finditer(text) if m.group()[0] != '"')
            return next(itertools.islice(marks, k, None)).start()
        depth, seen = depths[-1], seen + len(depths)
    return None


def _value_end(text: str, i: int) -> int:
    """The end of the JSON value starting at offset `i` of a text that parsed."""
    if i >= len(text):
        return i
    if text[i] == '"':
        return _STRING.match(text, i).end()
    if text[i] in "[{":
        depth = 0
        for m in _BRACKET_OR_STRING.finditer(text, i):
            c = m.group()[0]
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
                if depth == 0:
                    return m.end()
        return len(text)
    m = _SCALAR.match(text, i)
    return m.end() if m else i + 1


def locate(text: str, keys) -> tuple[int, int]:
    """Where the value at `keys` (object keys and array indexes) starts and ends in a text that
    parsed; as far as the keys lead when one is missing (the enclosing value)."""
    i = _SPACE.match(text, 0).end()
    for key in keys:
        if i >= len(text) or text[i] not in "[{":
            break
        j = _SPACE.match(text, i + 1).end()
        found, index = None, 0
        while j < len(text) and text[j] not in "]}":
            if text[i] == "{":
                m = _STRING.match(text, j)
                if m is None:
                    break
                name = json.loads(m.group())
                j = _SPACE.match(text, m.end()).end() + 1  # past the colon
                j = _SPACE.match(text, j).end()
                if name == key:
                    found = j  # the last of two equal keys is the one JSON keeps
            else:
                if index == key:
                    found = j
                    break
                index += 1
            j = _SPACE.match(text, _value_end(text, j)).end()
            if j < len(text) and text[j] == ",":
                j = _SPACE.match(text, j + 1).end()
        if found is None:
            break
        i = found
    return i, _value_end(text, i)


def shown(text: str) -> str:
    """A name read from a file, safe to print: control characters (a terminal's escapes) written as
    escapes, as every error's text is (errors.visible)."""
    return visible(text)


class Doc:
    """A JSON text read from a record file (a whole saved game, or one line of a trace): where it
    is, for diagnostics, and the error type of the step that reads it."""

    def __init__(self, path: str, text: str, line: int = 1, error=LanguageError, whole: str = "this object"):
        self.path = path
        self.text = text
        self.line = line
        self.error = error
        self.whole = whole  # what holds the fields, in messages: "the saved game"

    def diag(self, start: int, message: str, hint: str | None = None, end: int = 0) -> Diagnostic:
        """A diagnostic at offset `start` (to `end`, on the same line) of the text."""
        start = max(0, min(start, len(self.text)))
        line = self.text.count("\n", 0, start)
        first = self.text.rfind("\n", 0, start) + 1
        last = self.text.find("\n", start)
        source = self.text[first:last if last >= 0 else len(self.text)]
        col = start - first + 1
        end_col = end - first + 1 if end > start and (last < 0 or end <= last) else 0
        return Diagnostic(self.path, self.line + line, col, message, hint, source,
                          self.line + line if end_col else 0, end_col)

    def at(self, keys, message: str, hint: str | None = None) -> Diagnostic:
        """A diagnostic under the value at `keys` (see `locate`)."""
        start, end = locate(self.text, keys)
        return self.diag(start, message, hint, end)

    def fail(self, keys, message: str, hint: str | None = None):
        """Raise the step's error at the value at `keys`."""
        raise self.error([self.at(keys, message, hint)])

    def parse(self, what: str):
        """The JSON value of the text, within the bounds above; the step's error otherwise."""
        deep = too_deep(self.text)
        if deep is not None:
            raise self.error([self.diag(deep, f"{what}: arrays and objects nested more than {MAX_DEPTH} deep",
                                        "lfdsl writes this file with at most 3 levels")])
        try:
            return json.loads(self.text, parse_int=_whole, parse_constant=_no_constant)
        except _LongNumber:
            at = next((m for m in _LONG_NUMBER.finditer(self.text) if m.group()[0] != '"'), None)
            start, end = (at.start(), at.end()) if at else (0, 0)
            raise self.error([self.diag(start, f"{what}: a number of more than {MAX_DIGITS} digits",
                                        None, end)]) from None
        except _NotANumber as exc:
            i = self.text.find(exc.args[0])
            raise self.error([self.diag(max(i, 0), f"{what}: `{exc.args[0]}` is not a JSON value")]) from None
        except json.JSONDecodeError as exc:
            raise self.error([self.diag(exc.pos, f"{what}: not valid JSON here")]) from None

    # ---- checking values ------------------------------------------------------------------------
    def value_at(self, data, keys):
        """The value at `keys` of the parsed `data`; the step's error, under the object that
        should hold it, when it is missing."""
        value = _get(data, keys)
        if value is _MISSING:
            self.fail(keys, f"{self.whole} has no `{keys[-1]}`", "lfdsl writes every field of this file")
        return value

    def text_at(self, data: dict, keys, *, empty: bool = False, none: bool = False) -> str | None:
        """The string at `keys` of the parsed `data` (or None when `none` allows it)."""
        value = self.value_at(data, keys)
        if value is None and none:
            return None
        if not isinstance(value, str) or (not empty and not value):
            self.fail(keys, f"`{keys[-1]}` must be a text{' or null' if none else ''}, not {kind_of(value)}")
        return value

    def int_at(self, data: dict, keys, lo: int = MIN_INT, hi: int = MAX_INT) -> int:
        """The whole number at `keys`, from `lo` to `hi`."""
        value = self.value_at(data, keys)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(keys, f"`{keys[-1]}` must be a whole number, not {kind_of(value)}")
        if not lo <= value <= hi:
            self.fail(keys, f"`{keys[-1]}` must be from {lo} to {hi}, not {value}")
        return value

    def texts_at(self, data: dict, keys) -> dict:
        """The object of texts at `keys` (name -> text)."""
        value = self.value_at(data, keys)
        if not isinstance(value, dict):
            self.fail(keys, f"`{keys[-1]}` must be an object, not {kind_of(value)}")
        for k, v in value.items():
            if not isinstance(v, str):
                self.fail([*keys, k], f"`{shown(k)}` must be a text, not {kind_of(v)}")
        return value

    def named_file(self, written: str, keys, project: Project, kind: str, limit: int) -> str:
        """The path of a file this record names, checked as a ruleset's names are: relative to the
        record's folder, inside `project`, a readable regular file of at most `limit` bytes."""
        resolved = named_path(written, self.path)
        try:
            check_name(written, resolved, project, kind)
            check_readable(resolved, limit)
        except FileRefused as exc:
            self.fail(keys, f"`{shown(written)}`: {exc.message}", exc.hint)
        return resolved


class _NotANumber(Exception):
    """`NaN` or `Infinity`, which JSON itself does not have."""


def _no_constant(name: str):
    raise _NotANumber(name)


_MISSING = object()


def _get(data, keys):
    for key in keys:
        if isinstance(data, dict) and key in data:
            data = data[key]
        elif isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data):
            data = data[key]
        else:
            return _MISSING
    return data


def kind_of(value) -> str:
    """What a JSON value is, in a message: `a text`, `a whole number`, `null`..."""
    if value is None:
        return "null (or nothing)"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a text" if value else "an empty text"
    if isinstance(value, list):
        return "an array"
    return "an object"


def load_engine(doc: Doc, prefix: list, ruleset: str, cards: str | None, params: dict, search: tuple):
    """`Engine.load` of the files a record names; a parameter's error, which the engine gives for
    the `--set` it would have come from, placed at the value in the record's `set`."""
    try:
        return Engine.load(ruleset, cards, params, search=search)
    except ParamError as exc:
        names = list(params)
        raise doc.error([doc.at([*prefix, "set", names[d.line - 1]], d.message, d.hint)
                         if d.path == "--set" and 1 <= d.line <= len(names) else d
                         for d in exc.diagnostics]) from None


def check_loaded(doc: Doc, prefix: list, recorded: dict, loaded: dict, changed) -> None:
    """The record's hashes (`recorded`, names from its folder) must be those of exactly the files
    the game loaded (`loaded`, names as given); `changed(name)` says that a file changed."""
    folder = os.path.dirname(os.path.abspath(doc.path))
    now = {relative_to(folder, name): digest for name, digest in loaded.items()}
    errors = []
    for name, digest in now.items():
        if name not in recorded:
            errors.append(doc.at([*prefix, "files"], f"`{shown(name)}` is loaded by this game, but {doc.whole} "
                                 "has no hash for it", "lfdsl records the hash of every file a game loads"))
        elif recorded[name] != digest:
            errors.append(doc.at([*prefix, "files", name], *changed(name)))
    for name in recorded:
        if name not in now:
            errors.append(doc.at([*prefix, "files", name], f"`{shown(name)}` is not loaded by this game: "
                                 "only the files a game loads are named"))
    if errors:
        raise doc.error(errors)


def relative_to(folder: str, path: str) -> str:
    """`path` as a name written in a file of `folder`: relative to it, with `/` as separator."""
    try:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(folder))
    except ValueError:  # another drive: no relative name exists; the reader will refuse it
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")
