"""Ruleset parameters: their declared values and the overrides given with `--set` or in a
scenario's `[params]` table, each checked and, when wrong, reported where it was written."""
from __future__ import annotations

import attrs

from rulesdsl import ast as A
from rulesdsl.errors import Diagnostic, LanguageError, suggest
from rulesdsl.limits import MAX_INT, MIN_INT
from rulesdsl.values import SHOWN, WHOLE, in_int_range, shown

from .pysource import SourceCompiler


class ParamError(LanguageError):
    """A `--set` that names no parameter or gives a value of the wrong type."""

    step = "params"


_KIND_OF = {bool: "true or false", int: "a whole number", str: "a text"}
_INT_RANGE = f"from {MIN_INT:,} to {MAX_INT:,}"


class Typed(str):
    """A parameter's value as typed on the command line, knowing where: the option that gave it
    (`--set-b`, `--sweep`...), which of that option's arguments it was, the argument itself and the
    value's column in it. It is the text in every other use (a trace's `set`, a label)."""

    option: str
    number: int
    argument: str
    col: int

    def __new__(cls, text: str, option: str, number: int, argument: str, col: int):
        out = super().__new__(cls, text)
        out.option, out.number, out.argument, out.col = option, number, argument, col
        return out

    def __reduce__(self):
        return (str, (str(self),))  # a copy (for a worker, a sampler) needs the text, not its place


@attrs.frozen
class ParamValue:
    """A value given to a parameter and where it was written: the text typed after `name=` on the
    command line (a str), or a typed value from a scenario's `[params]` table."""

    value: object
    path: str
    line: int
    col: int
    source_line: str | None
    key_line: int
    key_col: int
    typed_source: bool = False  # True when the value comes typed (TOML), not as text to read

    def typed(self, default):
        """The value as the type of `default`, or None when it is not one."""
        v = self.value
        if isinstance(v, str) and not isinstance(default, str) and not self.typed_source:
            if isinstance(default, bool):
                return {"true": True, "false": False}.get(v)
            return in_int_range(v)
        if isinstance(default, bool):
            return v if isinstance(v, bool) else None
        if isinstance(default, int):
            return v if isinstance(v, int) and not isinstance(v, bool) else None
        return v if isinstance(v, str) else None

    def shown(self) -> str:
        """The value as it was written."""
        v = self.value
        if not self.typed_source:
            return f"`{v}`" if len(str(v)) <= SHOWN else shown(str(v))
        if isinstance(v, bool):
            return "true" if v else "false"
        return f'"{v}"' if isinstance(v, str) else str(v)

    def at_value(self, message, hint=None) -> Diagnostic:
        """A diagnostic with the caret under the value."""
        return Diagnostic(self.path, self.line, self.col, message, hint, self.source_line)

    def at_key(self, message, hint=None) -> Diagnostic:
        """A diagnostic with the caret under the parameter's name."""
        return Diagnostic(self.path, self.key_line, self.key_col, message, hint, self.source_line
                          if self.key_line == self.line else None)


# (node class, field) -> what a parameter used as that whole expression counts; such a
# parameter may not be given a negative value.
_COUNT_USES = {(A.ZoneDecl, "limit"): "a zone's limit", (A.CounterDecl, "low"): "a counter's `min`",
               (A.CounterDecl, "high"): "a counter's `max`", (A.Repeat, "count"): "a `repeat` count",
               (A.Create, "times"): "a `create ... times` count", (A.Actions, "count"): "an `actions` count",
               (A.Actions, "most"): "an `each at most` count", (A.Range, "lo"): "the end of a range",
               (A.Range, "hi"): "the end of a range"}


def _count_params(model) -> dict:
    """Parameters that some declaration or rule uses, as the whole expression, for a count, a
    limit or a bound: name -> what it is used as (the first use found)."""
    found: dict[str, str] = {}
    todo = list(model.program.items)
    seen = set()
    while todo:
        n = todo.pop()
        if isinstance(n, (list, tuple)):
            todo.extend(reversed(n))
            continue
        if not attrs.has(type(n)) or isinstance(n, A.Span) or id(n) in seen:
            continue
        seen.add(id(n))
        for f in attrs.fields(type(n)):
            sub = getattr(n, f.name)
            use = _COUNT_USES.get((type(n), f.name))
            if use and isinstance(sub, A.Name) and getattr(model.bindings.get(sub), "kind", None) == "param":
                found.setdefault(sub.id, use)
            if isinstance(sub, (list, tuple)) or attrs.has(type(sub)):
                todo.append(sub)
    return found


def resolve_params(model, overrides: dict) -> dict:
    """The value of every parameter of `model`: declared values, in order, with `--set` overrides; later params see earlier ones.

    An override is the text typed after `name=` on the command line, or a ParamValue that
    carries a typed value and the place it was written (a scenario's `[params]`). Every
    problem is reported at its place: `--set:N:col`, N counting the `--set` arguments."""
    errors = []
    given = {}
    for n, (name, raw) in enumerate(overrides.items(), 1):
        if isinstance(raw, Typed):
            raw = ParamValue(str(raw), raw.option, raw.number, raw.col, raw.argument, raw.number,
                             raw.col - len(name) - 1)
        elif not isinstance(raw, ParamValue):
            raw = ParamValue(raw, "--set", n, len(name) + 2, f"{name}={raw}", n, 1)
        given[name] = raw
        if name not in model.params:
            errors.append(raw.at_key(f"the ruleset has no parameter {shown(name, 'name')}",
                                     suggest(name, model.params)))
    not_negative = _count_params(model)
    values = {}
    for name, decl in model.params.items():
        default = SourceCompiler(model, dict(values)).constant(decl.value)
        if name not in given:
            values[name] = default
            continue
        allowed = SourceCompiler(model, dict(values)).constant(decl.allowed) if decl.allowed else None
        raw = given[name]
        value = raw.typed(default)
        if value is None or (type(value) is int and not MIN_INT <= value <= MAX_INT):
            kind = _KIND_OF[type(default)]
            if type(default) is int and (value is not None or not raw.typed_source
                                         and WHOLE.fullmatch(str(raw.value))):
                kind += f" {_INT_RANGE}"
            errors.append(raw.at_value(f"`{name}` takes {kind}, not {raw.shown()}"))
            values[name] = default
            continue
        values[name] = value
        if allowed is not None and value not in allowed:
            choices = (f"{allowed[0]}..{allowed[-1]}" if allowed == list(range(allowed[0], allowed[-1] + 1))
                       else ", ".join(str(a) for a in allowed))
            errors.append(raw.at_value(f"`{name}` may be {choices}, not {raw.shown()}",
                                       f"the ruleset declares `param {name} = ... from {choices}`"))
        elif (name in not_negative and not isinstance(value, bool) and isinstance(value, int)
              and value < 0 <= default):
            errors.append(raw.at_value(f"`{name}` may not be negative: it is used as {not_negative[name]}"))
    if errors:
        raise ParamError(errors)
    return values
