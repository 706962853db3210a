"""The card database: TOML tables structured by the ruleset's card kinds through strict cattrs."""
from __future__ import annotations

import tomllib
from pathlib import Path

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from . import ast as A
from .errors import CardError, Diagnostic, suggest

_PY_TYPES = {"int": int, "bool": bool, "text": str, "enum": str, "action": str}


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
    """An attrs class whose fields mirror the kind; enum and int types are validated."""
    attribs = {"name": attrs.field(validator=attrs.validators.instance_of(str))}
    for f in kind.fields:
        py = _PY_TYPES[f.type.name]
        validators = [_strict_type(py)]
        if f.type.name == "enum":
            validators.append(_one_of(f.type.values))
        if f.default is None:
            attribs[f.name] = attrs.field(validator=validators, kw_only=True)
        else:
            attribs[f.name] = attrs.field(default=_literal(f.default), validator=validators, kw_only=True)
    return attrs.make_class(f"Card_{kind.name}", attribs, frozen=True)


def _strict_type(py):
    def check(inst, attribute, value):
        ok = isinstance(value, py) and not (py is int and isinstance(value, bool))
        if not ok:
            raise TypeError(f"expected {_show_type(py)}, got {value!r}")
    return check


def _show_type(py):
    return {int: "int", bool: "bool", str: "text"}[py]


def _one_of(values):
    def check(inst, attribute, value):
        if value not in values:
            hint = suggest(value, values)
            raise ValueError(f"{value!r} is not one of {', '.join(values)}" + (f" ({hint})" if hint else ""))
    return check


def _converter():
    conv = cattrs.Converter(forbid_extra_keys=True)
    # Keep values as written; the attrs validators above reject wrong types instead of coercing.
    for py in (int, bool, str):
        conv.register_structure_hook(py, lambda v, _t: v)
    return conv


def load_cards(path: str | Path, kinds: dict) -> CardDB:
    """Load and validate a card database against the ruleset's kinds; raise CardError listing all problems."""
    path = str(path)
    errors: list[Diagnostic] = []

    def err(msg):
        errors.append(Diagnostic(path, 0, 0, msg))

    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CardError([Diagnostic(path, 0, 0, "card database not found")]) from None
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", 0) or 0
        col = getattr(exc, "colno", 0) or 0
        raise CardError([Diagnostic(path, line, col, f"not valid TOML: {exc}")]) from None
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
            label = f"card {entry.get('name')!r}" if isinstance(entry.get("name"), str) else f"[[{table}]] #{i + 1}"
            try:
                obj = conv.structure(entry, classes[table])
            except ClassValidationError as exc:
                for msg in _flatten(exc, entry):
                    err(f"{table} {label}: {msg}")
                continue
            except (TypeError, ValueError) as exc:
                err(f"{table} {label}: {exc}")
                continue
            if (table, obj.name) in names:
                err(f"{table} {label}: a second card with this name")
                continue
            names.add((table, obj.name))
            fields = attrs.asdict(obj)
            fields.pop("name")
            d = CardDef(table, obj.name, fields, len(defs))
            defs.append(d)
            by_kind[table].append(d)
    if errors:
        raise CardError(errors)
    return CardDB(path, tuple(defs), {k: tuple(v) for k, v in by_kind.items()})


def _flatten(exc, entry):
    """Turn a cattrs exception group into one readable line per problem."""
    out = []
    for sub in exc.exceptions:
        if isinstance(sub, ForbiddenExtraKeysError):
            for key in sorted(sub.extra_fields):
                out.append(f"unknown field {key!r}")
        elif isinstance(sub, KeyError):
            out.append(f"missing field {sub.args[0]!r}")
        elif isinstance(sub, (TypeError, ValueError)):
            field = _field_of(sub)
            text = str(sub)
            if "missing" in text and "keyword-only argument" in text:
                missing = text.split(":")[-1].strip().strip("'")
                out.append(f"missing field {missing!r}")
            else:
                out.append(f"field {field!r}: {text}" if field else text)
        elif isinstance(sub, ExceptionGroup):
            out.extend(_flatten(sub, entry))
        else:
            out.append(str(sub))
    return out


def _field_of(exc):
    for note in getattr(exc, "__notes__", ()) or ():
        if "attribute" in note or "field" in note:
            parts = note.split("'")
            if len(parts) >= 2:
                return parts[1]
    return None
