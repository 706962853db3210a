"""The card database: TOML tables structured by the ruleset's card kinds through strict cattrs."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from . import ast as A
from .errors import CardError, Diagnostic, make, suggest
from .files import DATA_MAX_BYTES, FileRefused, NotUtf8, decode, read_bytes

_PY_TYPES = {"int": int, "bool": bool, "text": str, "enum": str, "action": str}
_NONE_OK = {"action"}


@attrs.frozen
class CardDef:
    """One card definition: its kind, its name and every field value (defaults filled in)."""

    kind: str
    name: str
    fields: dict = attrs.field(eq=False)
    index: int = 0


@attrs.frozen
class CardDB:
    """All definitions, in file order, and an index by kind."""

    path: str
    defs: tuple
    by_kind: dict = attrs.field(eq=False)


def _literal(expr):
    if isinstance(expr, A.Lit):
        return expr.value
    if isinstance(expr, A.Name):
        return expr.id
    if isinstance(expr, A.Unary) and expr.op == "-" and isinstance(expr.operand, A.Lit):
        return -expr.operand.value
    return None


def _kind_class(kind: A.KindDecl):
    """An attrs class whose fields mirror the kind (values are validated before structuring)."""
    attribs = {"name": attrs.field()}
    for f in kind.fields:
        if f.default is None:
            attribs[f.name] = attrs.field(kw_only=True)
        else:
            attribs[f.name] = attrs.field(default=_literal(f.default), kw_only=True)
    return attrs.make_class(f"Card_{kind.name}", attribs, frozen=True)


def _show_type(py):
    return {int: "int", bool: "bool", str: "text"}[py]


def _show_value(v):
    return f'"{v}"' if isinstance(v, str) else repr(v)


def _problems(entry: dict, kind: A.KindDecl) -> list[str]:
    """Every problem of one card entry: unknown, missing and mistyped fields, bad enum values."""
    out = []
    fields = {f.name: f for f in kind.fields}
    for key in entry:
        if key != "name" and key not in fields:
            hint = suggest(key, list(fields))
            out.append(f"unknown field {key!r}" + (f" ({hint})" if hint else ""))
    if "name" not in entry:
        out.append("missing field 'name'")
    elif not isinstance(entry["name"], str):
        out.append(f"field 'name': expected text, got {_show_value(entry['name'])}")
    for f in kind.fields:
        if f.name not in entry:
            if f.default is None:
                out.append(f"missing field {f.name!r}")
            continue
        value = entry[f.name]
        py = _PY_TYPES[f.type.name]
        if value == "none" and f.type.name in _NONE_OK:
            continue
        if not isinstance(value, py) or (py is int and isinstance(value, bool)):
            out.append(f"field {f.name!r}: expected {_show_type(py)}, got {_show_value(value)}")
        elif f.type.name == "enum" and value not in f.type.values:
            hint = suggest(value, f.type.values)
            out.append(f"field {f.name!r}: {_show_value(value)} is not one of {', '.join(f.type.values)}"
                       + (f" ({hint})" if hint else ""))
    return out


def _converter():
    conv = cattrs.Converter(forbid_extra_keys=True)
    # Keep values as written: `_problems` has already rejected wrong types, so nothing is coerced.
    for py in (int, bool, str):
        conv.register_structure_hook(py, lambda v, _t: v)
    return conv


def _toml_position(exc) -> tuple[int, int]:
    """tomllib (3.11) puts the position only in the message: `(at line 5, column 19)`."""
    m = re.search(r"at line (\d+), column (\d+)", str(exc))
    if m:
        return int(m.group(1)), int(m.group(2))
    return getattr(exc, "lineno", 0) or 0, getattr(exc, "colno", 0) or 0


def load_cards(path: str | Path, kinds: dict) -> CardDB:
    """Load and validate a card database against the ruleset's kinds; raise CardError listing all problems."""
    path = str(path)
    errors: list[Diagnostic] = []

    def err(msg):
        errors.append(Diagnostic(path, 0, 0, msg))

    try:
        data = read_bytes(path, DATA_MAX_BYTES)
    except FileRefused as exc:
        raise CardError([Diagnostic(path, 0, 0, f"cannot read this card database: {exc.message}",
                                    exc.hint)]) from None
    try:
        text = decode(data)
    except NotUtf8 as exc:
        raise CardError([make(path, data.decode("utf-8", errors="replace"), exc.line, exc.col,
                              "not valid UTF-8", "save the file as UTF-8")]) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, col = _toml_position(exc)
        raise CardError([make(path, text, line, col, f"not valid TOML: {exc}")]) from None
    conv = _converter()
    classes = {name: _kind_class(k) for name, k in kinds.items()}
    defs: list[CardDef] = []
    by_kind: dict[str, list] = {name: [] for name in kinds}
    names: set[tuple[str, str]] = set()
    for table, entries in raw.items():
        if table not in classes:
            err(f"table [[{table}]] is not a card kind of the ruleset" +
                (f"; {suggest(table, classes)}" if suggest(table, classes) else ""))
            continue
        if not isinstance(entries, list):
            err(f"[{table}] must be an array of tables: write [[{table}]]")
            continue
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                err(f"{table} [[{table}]] #{i + 1}: each card must be a table, got {_show_value(entry)}")
                continue
            label = f"card {entry.get('name')!r}" if isinstance(entry.get("name"), str) else f"[[{table}]] #{i + 1}"
            problems = _problems(entry, kinds[table])
            if problems:
                for msg in problems:
                    err(f"{table} {label}: {msg}")
                continue
            try:
                obj = conv.structure(entry, classes[table])
            except (ClassValidationError, ForbiddenExtraKeysError) as exc:  # pragma: no cover - pre-validated
                err(f"{table} {label}: {exc}")
                continue
            if (table, obj.name) in names:
                err(f"{table} {label}: a second card with this name")
                continue
            names.add((table, obj.name))
            fields = attrs.asdict(obj)
            fields.pop("name")
            for f in kinds[table].fields:
                if f.type.name in _NONE_OK and fields[f.name] == "none":
                    fields[f.name] = None
            d = CardDef(table, obj.name, fields, len(defs))
            defs.append(d)
            by_kind[table].append(d)
    if errors:
        raise CardError(errors)
    return CardDB(path, tuple(defs), {k: tuple(v) for k, v in by_kind.items()})




def cross_check(model, db: CardDB):
    """Checks that need both the rules and the cards: action names in card data, and actions
    that neither the rules nor the cards ever name."""
    errors = []
    named = set(model.used_actions)
    for d in db.defs:
        kind = model.kinds[d.kind]
        for f in kind.fields:
            if f.type.name != "action":
                continue
            value = d.fields[f.name]
            if value is None:
                continue
            if value not in model.actions:
                hint = suggest(value, model.actions)
                errors.append(Diagnostic(db.path, 0, 0, f"{d.kind} card {d.name!r}: field {f.name!r}: "
                                         f"{value!r} is not an action of the ruleset" + (f" ({hint})" if hint else "")))
            named.add(value)
    if errors:
        raise CardError(errors)
    from .errors import CheckError
    unused = []
    for name, act in model.actions.items():
        if name not in named:
            where = act.span.path or model.program.path
            unused.append(make(where, model.program.source_of(where), act.span.line, act.span.col,
                               f"action `{name}` can never be performed: no `actions`, `do`, rules data "
                               "or card names it"))
    if unused:
        raise CheckError(unused)


def merge_cards(dbs) -> CardDB:
    """Several card databases as one (a ruleset and the layers it extends each bring theirs)."""
    if len(dbs) == 1:
        return dbs[0]
    defs, by_kind, seen, errors = [], {}, {}, []
    for db in dbs:
        for d in db.defs:
            key = (d.kind, d.name)
            if key in seen:
                errors.append(Diagnostic(db.path, 0, 0, f"{d.kind} card {d.name!r} is already in {seen[key]}"))
                continue
            seen[key] = db.path
            nd = CardDef(d.kind, d.name, d.fields, len(defs))
            defs.append(nd)
            by_kind.setdefault(d.kind, []).append(nd)
    if errors:
        raise CardError(errors)
    kinds = {k for db in dbs for k in db.by_kind}
    return CardDB(" + ".join(db.path for db in dbs), tuple(defs),
                  {k: tuple(by_kind.get(k, ())) for k in sorted(kinds)})
