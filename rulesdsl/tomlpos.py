"""Where things are in a TOML text: tomllib gives values without positions, so this small scanner
maps key paths back to lines and columns for the diagnostics of card databases and scenarios.

A path is a tuple of keys and indexes, as the parsed data is walked: `("Kind", 3, "cost")` is the
`cost` key of the fourth `[[Kind]]` table, `("step", 0, "expect", 1)` the second string of the
first step's `expect` array. Only texts that tomllib has accepted are scanned, so the scanner can
trust the syntax; it never decides what is valid.
"""
from __future__ import annotations

import bisect
import re
import tomllib

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_DIGITS = re.compile(r"[0-9_]+")
_NUMBER_LIKE = re.compile(r"[0-9A-Za-z_.:+-]+")
_VALUE_END = re.compile(r"[\s,\]}#]|$")
_ILLEGAL = re.compile(r"Illegal character '(.+)'")
_CONTROL = {"\\n": "a line end", "\\t": "a tab", "\\r": "a carriage return", "\\x00": "a null character"}
_DECODE_ERROR = re.compile(r"\s*\((?:at line (\d+), column (\d+)|at end of document)\)\s*$")


def line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a character index."""
    line = text.count("\n", 0, index) + 1
    start = text.rfind("\n", 0, index) + 1
    return line, index - start + 1


def long_integer(text: str, digits: int) -> tuple[int, int] | None:
    """Start and end index of the first integer of a TOML text written with more than `digits`
    decimal digits, outside strings and comments, or None. tomllib converts every integer it reads
    and Python refuses to convert more than 4,300 digits: this finds the number it stopped on."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            i += len(quote)
            while i < n and not text.startswith(quote, i) and not (len(quote) == 1 and text[i] == "\n"):
                i += 2 if ch == '"' and text[i] == "\\" else 1
            i += len(quote)
        elif ch.isdigit() and ch.isascii():
            m = _DIGITS.match(text, i)
            j = _skip_blanks(text, m.end())
            word = _NUMBER_LIKE.match(text, i)
            if word.end() > m.end() or text.startswith("=", j):
                i = word.end()  # a key, a float, a date, a time, or a number in base 16, 8 or 2
                continue
            if sum(c != "_" for c in m.group(0)) > digits:
                start = i - 1 if i > 0 and text[i - 1] in "+-" else i
                return start, m.end()
            i = m.end()
        elif ch != "-" and _BARE.match(text, i):  # a sign is read with the number after it
            i = _BARE.match(text, i).end()
        else:
            i += 1
    return None


def _skip_blanks(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def decode_error(text: str, exc: tomllib.TOMLDecodeError) -> tuple[int, int, str]:
    """Line, column and a plain message for a TOML syntax error. tomllib puts the position in its
    message, `(at line 5, column 19)` or `(at end of document)`; the end of the document is the
    position just after the last character."""
    message = str(exc)
    m = _DECODE_ERROR.search(message)
    if m and m.group(1):
        line, col = int(m.group(1)), int(m.group(2))
    else:
        body = text.rstrip("\n")
        line, col = line_col(body, len(body))
    plain = _DECODE_ERROR.sub("", message) if m else message
    bad = _ILLEGAL.fullmatch(plain)
    if bad:
        char = bad.group(1)
        named = _CONTROL.get(char, f"`{char}`")
        plain = f"{named} is not allowed here" + (" (is a closing quote missing?)" if char == "\\n" else "")
    plain = plain[:1].lower() + plain[1:]
    return line, col, plain


class TomlMap:
    """Positions of the table headers, keys and values of a TOML text that tomllib accepted."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines()
        self._starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        self.headers: dict[tuple, int] = {}
        self.keys: dict[tuple, int] = {}
        self.values: dict[tuple, int] = {}
        self._strings: dict[tuple, tuple[int, str]] = {}
        self._arrays: dict[tuple, int] = {}
        self._scan()

    # ---- lookups ---------------------------------------------------------------------------------
    def pos(self, index: int) -> tuple[int, int]:
        """1-based line and column of a character index."""
        line = bisect.bisect_right(self._starts, index)
        return line, index - self._starts[line - 1] + 1

    def header(self, path: tuple) -> tuple[int, int]:
        """Where the table at `path` starts: its `[header]`, or its key for an inline table; the
        nearest enclosing table when it has neither."""
        path = tuple(path)
        while path:
            for table in (self.headers, self.values, self.keys):
                if path in table:
                    return self.pos(table[path])
            path = path[:-1]
        return (1, 1) if self.text else (0, 0)

    def key(self, path: tuple) -> tuple[int, int]:
        """Where the key of `path` is written; its table's header when the key is not written."""
        path = tuple(path)
        if path in self.keys:
            return self.pos(self.keys[path])
        return self.header(path)

    def value(self, path: tuple) -> tuple[int, int]:
        """Where the value of `path` starts (the opening quote of a string)."""
        path = tuple(path)
        if path in self.values:
            return self.pos(self.values[path])
        return self.key(path)

    def value_end(self, path: tuple) -> tuple[int, int]:
        """Where a value that is not a string, an array or a table (a number, a date, true or
        false) ends: the position just after its last character."""
        i = self.values.get(tuple(path))
        if i is None:
            return self.key(path)
        return self.pos(_VALUE_END.search(self.text, i).start())

    def in_string(self, path: tuple, offset: int) -> tuple[int, int]:
        """Where the character at `offset` (0-based, in the decoded string) of the string value at
        `path` is written; escapes and line continuations are followed."""
        path = tuple(path)
        if path not in self._strings:
            return self.value(path)
        i, quote = self._strings[path]
        t = self.text
        basic = quote[0] == '"'
        if len(quote) == 3 and t.startswith("\n", i):
            i += 1
        elif len(quote) == 3 and t.startswith("\r\n", i):
            i += 2
        left = offset
        while left > 0 and i < len(t) and not t.startswith(quote, i):
            if basic and t[i] == "\\":
                nxt = t[i + 1:i + 2]
                if nxt in ("u", "U"):
                    i += 6 if nxt == "u" else 10
                elif nxt in (" ", "\t", "\r", "\n"):
                    i += 1
                    while i < len(t) and t[i] in " \t\r\n":
                        i += 1
                    continue
                else:
                    i += 2
            else:
                i += 1
            left -= 1
        return self.pos(i)

    def source_line(self, line: int) -> str | None:
        """The text of a 1-based line."""
        return self.lines[line - 1] if 1 <= line <= len(self.lines) else None

    # ---- scanning --------------------------------------------------------------------------------
    def _skip(self, i: int, newlines: bool) -> int:
        t = self.text
        while i < len(t):
            ch = t[i]
            if ch in " \t" or (newlines and ch in "\r\n"):
                i += 1
            elif ch == "#":
                while i < len(t) and t[i] != "\n":
                    i += 1
            else:
                break
        return i

    def _scan(self):
        t = self.text
        i = 0
        table: tuple = ()
        while True:
            i = self._skip(i, True)
            if i >= len(t):
                return
            if t[i] == "[":
                many = t.startswith("[[", i)
                keys, j = self._key(self._skip(i + (2 if many else 1), False))
                j = t.index("]", j) + (2 if many else 1)
                path = self._resolve(keys[:-1]) + (keys[-1],)
                if many:
                    n = self._arrays.get(path, 0)
                    self._arrays[path] = n + 1
                    self.headers.setdefault(path, i)
                    path += (n,)
                self.headers[path] = i
                table = path
                i = j
            else:
                keys, j = self._key(i)
                j = self._skip(t.index("=", j) + 1, False)
                full = table + tuple(keys)
                self.keys[full] = i
                i = self._value(j, full)

    def _resolve(self, keys) -> tuple:
        """A header's path, with the latest index of each array of tables it goes through."""
        path: tuple = ()
        for k in keys:
            path += (k,)
            if path in self._arrays:
                path += (self._arrays[path] - 1,)
        return path

    def _key(self, i: int) -> tuple[list[str], int]:
        """A dotted key starting at `i`: its parts and the index after it."""
        t = self.text
        parts = []
        while True:
            i = self._skip(i, False)
            if t[i] in "\"'":
                end = self._string_end(i, t[i])
                parts.append(tomllib.loads("k = " + t[i:end])["k"])
                i = end
            else:
                m = _BARE.match(t, i)
                parts.append(m.group(0))
                i = m.end()
            j = self._skip(i, False)
            if j < len(t) and t[j] == ".":
                i = j + 1
                continue
            return parts, i

    def _string_end(self, i: int, quote: str) -> int:
        """The index just after the string whose opening `quote` is at `i`."""
        t = self.text
        j = i + len(quote)
        while True:
            if quote[0] == '"' and t[j] == "\\":
                j += 2
                continue
            if t.startswith(quote, j):
                j += len(quote)
                while len(quote) == 3 and j < len(t) and t[j] == quote[0]:
                    j += 1  # up to two quotes may end the content of a multi-line string
                return j
            j += 1

    def _value(self, i: int, path: tuple) -> int:
        t = self.text
        self.values[path] = i
        ch = t[i]
        if ch in "\"'":
            quote = ch * 3 if t.startswith(ch * 3, i) else ch
            self._strings[path] = (i + len(quote), quote)
            return self._string_end(i, quote)
        if ch == "[":
            i += 1
            n = 0
            while True:
                i = self._skip(i, True)
                if t[i] == "]":
                    return i + 1
                i = self._skip(self._value(i, path + (n,)), True)
                n += 1
                if t[i] == ",":
                    i += 1
        if ch == "{":
            i += 1
            while True:
                i = self._skip(i, False)
                if t[i] == "}":
                    return i + 1
                if t[i] == ",":
                    i += 1
                    continue
                keys, j = self._key(i)
                self.keys[path + tuple(keys)] = i
                i = self._value(self._skip(t.index("=", j) + 1, False), path + tuple(keys))
        j = i
        while j < len(t) and t[j] not in ",]}\n#":
            j += 1
        return j
