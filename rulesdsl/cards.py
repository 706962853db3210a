"""The card database: TOML tables structured by the ruleset's card kinds through strict cattrs."""
from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from . import ast as A
from .errors import CardError, Diagnostic, at, make, suggest
from .limits import MAX_FACE_DEFS, MAX_INT, MIN_INT
from .files import DATA_MAX_BYTES, FileRefused, NotUtf8, decode, read_bytes
from .tomlpos import TomlMap, decode_error, line_col, long_integer

_PY_TYPES = {"int": int, "bool": bool, "text": str, "enum": str, "action": str, "list": list, "set": list,
             "formula": str}
_NONE_OK = {"action", "formula"}
_FORMULA_TOKEN = re.compile(r'\s*(?:(?P<num>-?[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<text>"[^"\n]*")|(?P<sym>[(),\[\]]))')
MAX_FORMULA_ARGS = 12
_OUT_OF_RANGE = "the number is outside the engine's range (-2^63 .. 2^63-1)"


def _int_in_range(text: str) -> int | None:
    """The integer a decimal literal (a sign, then digits) writes, or None outside MIN_INT .. MAX_INT.

    A literal longer than any number in the range is refused by its length and never converted:
    Python refuses to convert more than 4,300 digits, and converting is quadratic before that."""
    if len(text.lstrip("+-").lstrip("0")) > len(str(MAX_INT)):
        return None
    n = int(text)
    return n if MIN_INT <= n <= MAX_INT else None


def parse_formula(text: str) -> tuple:
    """`name(arg, ...)` as (name, (arg, ...), (sort, ...)): a card's formula, naming a ruleset
    definition and the card's own arguments to it, each a number, true or false, a "text", a bare
    name (an enum value) or a list of numbers; the sorts say which ("int", "bool", "text", "name",
    "list"). A mistake raises ValueError(message, offset in the text)."""
    tokens, i = [], 0
    while i < len(text):
        m = _FORMULA_TOKEN.match(text, i)
        if m is None or m.end() == i:
            if text[i:].strip() == "":
                break
            raise ValueError("unexpected character", len(text) - len(text[i:].lstrip()))
        kind = m.lastgroup
        tokens.append((kind, m.group(kind), m.start(kind)))
        i = m.end()
    tokens.append(("end", "", len(text)))
    pos = 0

    def take(kind, value=None, what="?"):
        nonlocal pos
        k, v, at = tokens[pos]
        if k != kind or (value is not None and v != value):
            raise ValueError(f"expected {what}", at)
        pos += 1
        return v

    def number():
        at = tokens[pos][2]
        n = _int_in_range(take("num", None, "a number"))
        if n is None:
            raise ValueError(_OUT_OF_RANGE, at)
        return n

    def arg():
        nonlocal pos
        k, v, at = tokens[pos]
        if k == "num":
            return number()
        if k == "text":
            pos += 1
            return ("text", v[1:-1])
        if k == "name":
            pos += 1
            return {"true": True, "false": False}.get(v, v)
        if (k, v) == ("sym", "["):
            pos += 1
            items = []
            while tokens[pos][:2] != ("sym", "]"):
                if items:
                    take("sym", ",", "`,` or `]`")
                items.append(number())
            pos += 1
            return items
        raise ValueError("expected a value: a number, a name, a \"text\" or a list of numbers", at)
    name = take("name", None, "the name of a definition")
    if name in ("true", "false"):
        raise ValueError("expected the name of a definition", tokens[0][2])
    take("sym", "(", "`(` after the definition's name")
    args = []
    while tokens[pos][:2] != ("sym", ")"):
        if args:
            take("sym", ",", "`,` or `)`")
        args.append(arg())
        if len(args) > MAX_FORMULA_ARGS:
            raise ValueError(f"more than {MAX_FORMULA_ARGS} arguments", tokens[pos - 1][2])
    pos += 1
    take("end", None, "the end of the formula")
    sorts = tuple("bool" if type(a) is bool else "int" if type(a) is int else "list" if type(a) is list
                  else "text" if type(a) is tuple else "name" for a in args)
    return (name, tuple(a[1] if type(a) is tuple else a for a in args), sorts)


def formula_text(formula) -> str:
    """A parsed formula written back as the card database writes it."""
    name, args, sorts = formula

    def one(a, sort):
        if sort == "text":
            return f'"{a}"'
        if sort == "bool":
            return "true" if a else "false"
        if sort == "list":
            return "[" + ", ".join(map(str, a)) + "]"
        return str(a)
    return f"{name}({', '.join(one(a, s) for a, s in zip(args, sorts))})"


@attrs.frozen
class CardDef:
    """One card definition: its kind, its name and every field value (defaults filled in)."""

    kind: str
    name: str
    fields: dict = attrs.field(eq=False)
    index: int = 0
    path: str = attrs.field(default="", eq=False)
    # field name -> (line, col, source line) of its value; "" -> the card's header
    at: dict = attrs.field(factory=dict, eq=False)
    # field name -> the file its value is written in, when a layer's edit wrote it and not `path`
    paths: dict = attrs.field(factory=dict, eq=False)
    # A card of a kind with faces: the values its database gives each face (face -> {field: value}),
    # the face this definition is, and every face the card has as (face, definition index).
    face_values: dict = attrs.field(factory=dict, eq=False)
    face: str | None = None
    faces: tuple = ()

    def where(self, field: str = "") -> tuple[int, int, str | None]:
        """Line, column and source line of a field's value (of the card's header for "")."""
        return self.at.get(field) or self.at.get("") or (0, 0, None)

    def path_of(self, field: str = "") -> str:
        """The file where a field's value (the card's header for "") is written."""
        return self.paths.get(field) or (self.paths.get("") if field not in self.at else None) or self.path


@attrs.frozen
class CardDB:
    """All definitions, in file order, and an index by kind."""

    path: str
    defs: tuple
    by_kind: dict = attrs.field(eq=False)
    texts: dict = attrs.field(factory=dict, eq=False)  # file -> the text that was loaded
    # The other faces of cards with several (see `with_faces`), numbered after `defs`.
    face_defs: tuple = ()


def _literal(expr):
    if isinstance(expr, A.Lit):
        return expr.value
    if isinstance(expr, A.Name):
        return expr.id
    if isinstance(expr, A.Unary) and expr.op == "-" and isinstance(expr.operand, A.Lit):
        return -expr.operand.value
    if isinstance(expr, A.ListLit):
        items = [_literal(i) for i in expr.items]
        return None if any(i is None for i in items) else items
    return None


def _attr(field: str) -> str:
    """The attribute holding field `field` in a kind's class: prefixed, so that a field may be named
    as the rules like, even as a Python keyword (`pass`, `from`)."""
    return field if field == "name" else "f_" + field


def _kind_class(kind: A.KindDecl):
    """An attrs class whose fields mirror the kind (values are validated before structuring);
    structure a card with `_structured`."""
    attribs = {"name": attrs.field()}
    for f in kind.fields:
        if f.default is None:
            attribs[_attr(f.name)] = attrs.field(kw_only=True)
        else:
            attribs[_attr(f.name)] = attrs.field(default=_literal(f.default), kw_only=True)
    return attrs.make_class(f"Card_{kind.name}", attribs, frozen=True)


def _structured(conv, entry: dict, cls) -> tuple:
    """(the card's name, its fields by name) from a card's table, through the kind's class."""
    obj = conv.structure({_attr(k): v for k, v in entry.items()}, cls)
    fields = {(k if k == "name" else k[2:]): v for k, v in attrs.asdict(obj).items()}
    return fields.pop("name"), fields


def _show_type(py, type_name: str = ""):
    if type_name == "formula":
        return 'a formula, written as "name(arguments)", or "none"'
    if py is list:
        return "a list of names" if type_name == "set" else "a list of numbers"
    return {int: "int", bool: "bool", str: "text"}[py]


def _show_value(v):
    return f'"{v}"' if isinstance(v, str) else repr(v)


def _field_problem(f, value) -> str | None:
    """What is wrong with `value` for field `f`, or None."""
    py = _PY_TYPES[f.type.name]
    if value == "none" and f.type.name in _NONE_OK:
        return None
    if not isinstance(value, py) or (py is int and isinstance(value, bool)):
        return f"field {f.name!r}: expected {_show_type(py, f.type.name)}, got {_show_value(value)}"
    if f.type.name == "formula":
        wrong = _formula_syntax_problem(value)
        if wrong:
            # A long formula is not repeated whole: the caret, or the column, shows where it goes wrong.
            shown = f" {value!r}" if len(value) <= 60 else ""
            return f"field {f.name!r}: {wrong[0]} at column {wrong[1] + 1} of the formula{shown}"
    if f.type.name == "set" and not all(isinstance(v, str) and v in f.type.values for v in value):
        wrong = next(v for v in value if not (isinstance(v, str) and v in f.type.values))
        hint = suggest(wrong, f.type.values) if isinstance(wrong, str) else None
        return (f"field {f.name!r}: {_show_value(wrong)} is not one of {', '.join(f.type.values)}"
                + (f" ({hint})" if hint else ""))
    if f.type.name == "list" and not all(type(v) is int and MIN_INT <= v <= MAX_INT for v in value):
        return f"field {f.name!r}: a list of numbers (in the engine's range), got {_show_value(value)}"
    if py is int and not MIN_INT <= value <= MAX_INT:
        return f"field {f.name!r}: {_OUT_OF_RANGE}"
    if f.type.name == "enum" and value not in f.type.values:
        hint = suggest(value, f.type.values)
        return (f"field {f.name!r}: {_show_value(value)} is not one of {', '.join(f.type.values)}"
                + (f" ({hint})" if hint else ""))
    return None


def _formula_syntax_problem(text: str) -> tuple[str, int] | None:
    """What is wrong with a formula's text and the offset in the text where it is, or None."""
    try:
        parse_formula(text)
    except ValueError as exc:
        return exc.args[0], exc.args[1]
    return None


def _problems(entry: dict, kind: A.KindDecl) -> list[tuple[str, tuple, str, int | None]]:
    """Every problem of one card entry: unknown, missing and mistyped fields, bad enum values, and
    the same in the tables of its faces. Each is (where, path below the card, message, offset):
    where is "key", "value" or "header" (a missing field); offset, for a formula that does not
    parse, is where in its text it goes wrong (else None)."""
    out = []
    fields = {f.name: f for f in kind.fields}
    faces = [x.name for x in kind.faces]

    def check(path, f, value, prefix=""):
        problem = _field_problem(f, value)
        if problem:
            wrong = _formula_syntax_problem(value) if f.type.name == "formula" and isinstance(value, str) else None
            out.append(("value", path, prefix + problem, wrong[1] if wrong else None))

    for key in entry:
        if key != "name" and key not in fields and key not in faces:
            hint = suggest(key, list(fields) + faces)
            out.append(("key", (key,), f"unknown field {key!r}" + (f" ({hint})" if hint else ""), None))
    if "name" not in entry:
        out.append(("header", (), "missing field 'name'", None))
    elif not isinstance(entry["name"], str):
        out.append(("value", ("name",), f"field 'name': expected text, got {_show_value(entry['name'])}", None))
    for f in kind.fields:
        if f.name not in entry:
            if f.default is None:
                out.append(("header", (), f"missing field {f.name!r}", None))
            continue
        check((f.name,), f, entry[f.name])
    for face in faces:
        table = entry.get(face)
        if table is None:
            continue
        if not isinstance(table, dict):
            out.append(("value", (face,), f"face {face!r}: expected a table of field values, "
                                          f"got {_show_value(table)}", None))
            continue
        for key, value in table.items():
            if key == "name":
                if not isinstance(value, str):
                    out.append(("value", (face, key), f"face {face!r}: field 'name': expected text, "
                                                      f"got {_show_value(value)}", None))
            elif key in fields:
                check((face, key), fields[key], value, f"face {face!r}: ")
            else:
                hint = suggest(key, list(fields))
                message = f"face {face!r}: unknown field {key!r}" + (f" ({hint})" if hint else "")
                out.append(("key", (face, key), message, None))
    return out


def _converter():
    conv = cattrs.Converter(forbid_extra_keys=True)
    # Keep values as written: `_problems` has already rejected wrong types, so nothing is coerced.
    for py in (int, bool, str):
        conv.register_structure_hook(py, lambda v, _t: v)
    return conv


def read_toml(path: str, error=CardError, missing: str = "file not found") -> tuple[dict, TomlMap]:
    """A TOML file's data and the positions of its keys; a file that is not UTF-8 or not TOML
    raises `error` with the position of the first problem."""
    try:
        data = read_bytes(path, DATA_MAX_BYTES)
    except FileRefused as exc:
        message = missing if exc.message == "file not found" else f"cannot be read: {exc.message}"
        raise error([Diagnostic(path, 0, 0, message, exc.hint)]) from None
    try:
        text = decode(data)
    except NotUtf8 as exc:
        bad_line = data.split(b"\n")[exc.line - 1].decode("utf-8", errors="replace")
        raise error([Diagnostic(path, exc.line, exc.col, "not valid UTF-8", None, bad_line)]) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, col, message = decode_error(text, exc)
        raise error([make(path, text, line, col, f"not valid TOML: {message}")]) from None
    except ValueError:  # the only other failure of tomllib: a number too long to convert
        span = long_integer(text, sys.get_int_max_str_digits())
        (line, col), end = (line_col(text, span[0]), line_col(text, span[1])) if span else ((0, 0), (0, 0))
        raise error([make(path, text, line, col, _OUT_OF_RANGE, end_line=end[0], end_col=end[1])]) from None
    where = TomlMap(text)
    errors = []
    for key_path in _huge_integers(raw):  # written in base 16, 8 or 2, or just too large
        (line, col), end = where.value(key_path), where.value_end(key_path)
        errors.append(make(path, text, line, col, _OUT_OF_RANGE, end_line=end[0], end_col=end[1]))
    if errors:
        raise error(errors)
    return raw, where


def _huge_integers(data) -> list[tuple]:
    """The key paths of the integers of parsed TOML data outside the engine's range."""
    out, todo = [], [((), data)]
    while todo:
        key_path, value = todo.pop()
        if isinstance(value, dict):
            todo.extend((key_path + (k,), v) for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((key_path + (i,), v) for i, v in enumerate(value))
        elif type(value) is int and not MIN_INT <= value <= MAX_INT:
            out.append(key_path)
    return out


def load_cards(path: str | Path, kinds: dict) -> CardDB:
    """Load and validate a card database against the ruleset's kinds; raise CardError listing all
    problems, each at the line and column it is written (a missing field at its card's header)."""
    path = str(path)
    errors: list[Diagnostic] = []
    raw, where = read_toml(path, CardError, "card database not found")

    def err(at: tuple[int, int], msg, hint=None):
        line, col = at
        errors.append(Diagnostic(path, line, col, msg, hint, where.source_line(line)))

    conv = _converter()
    classes = {name: _kind_class(k) for name, k in kinds.items()}
    defs: list[CardDef] = []
    by_kind: dict[str, list] = {name: [] for name in kinds}
    first: dict[tuple[str, str], int] = {}
    for table, entries in raw.items():
        if table not in classes:
            hint = suggest(table, classes)
            err(where.header((table,)), f"table [[{table}]] is not a card kind of the ruleset" +
                (f"; {hint}" if hint else ""))
            continue
        if not isinstance(entries, list):
            err(where.header((table,)), f"[{table}] must be an array of tables: write [[{table}]]")
            continue
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                err(where.value((table, i)),
                    f"{table} [[{table}]] #{i + 1}: each card must be a table, got {_show_value(entry)}")
                continue
            label = f"card {entry.get('name')!r}" if isinstance(entry.get("name"), str) else f"[[{table}]] #{i + 1}"
            problems = _problems(entry, kinds[table])
            if problems:
                for kind_of_place, below, msg, offset in problems:
                    place = {"key": where.key, "value": where.value, "header": where.header}[kind_of_place]
                    at = place((table, i) + below) if offset is None else where.in_string((table, i) + below, offset)
                    err(at, f"{table} {label}: {msg}")
                continue
            face_names = {x.name for x in kinds[table].faces}
            face_tables = {k: v for k, v in entry.items() if k in face_names}
            entry = {k: v for k, v in entry.items() if k not in face_names}
            try:
                name, fields = _structured(conv, entry, classes[table])
            except (ClassValidationError, ForbiddenExtraKeysError):  # pragma: no cover - pre-validated
                err(where.header((table, i)), f"{table} {label}: does not match the card kind")
                continue
            if (table, name) in first:
                err(where.header((table, i)), f"{table} {label}: a second card with this name "
                    f"(the first is at {path}:{first[(table, name)]})")
                continue
            first[(table, name)] = where.header((table, i))[0]
            for f in kinds[table].fields:
                fields[f.name] = _data_value(f, fields[f.name])
            places = {"": where.header((table, i)) + (where.source_line(where.header((table, i))[0]),)}
            for key in entry:
                line, col = where.value((table, i, key))
                places[key] = (line, col, where.source_line(line))
            for face, values in face_tables.items():  # a face's values: "face.field"
                for key in values:
                    line, col = where.value((table, i, face, key))
                    places[f"{face}.{key}"] = (line, col, where.source_line(line))
            d = CardDef(table, name, fields, len(defs), path, places, face_values=face_tables)
            defs.append(d)
            by_kind[table].append(d)
    if errors:
        raise CardError(errors)
    return CardDB(path, tuple(defs), {k: tuple(v) for k, v in by_kind.items()}, {path: where.text})


def cross_check(model, db: CardDB):
    """Checks that need both the rules and the cards: action names and formulas in card data, and
    actions that neither the rules nor the cards ever name."""
    errors = []
    named = set(model.used_actions)
    every = db.defs + db.face_defs
    by_index = {d.index: d for d in every}
    for d in every:
        kind = model.kinds[d.kind]
        first = by_index[d.faces[0][1]] if d.faces else d
        for f in kind.fields:
            if f.type.name not in ("formula", "action") or d.fields[f.name] is None:
                continue
            value = d.fields[f.name]
            own = f"{d.face}.{f.name}" in d.at  # written in the face's table
            if f.type.name == "action":
                named.add(value)
            if d is not first and not own and value == first.fields[f.name]:
                continue  # the card's own value, checked on its first face
            if f.type.name == "formula":
                problem = _formula_problem(model, kind, f, value)
            elif value not in model.actions:
                hint = suggest(value, model.actions)
                problem = (f"{value!r} is not an action of the ruleset" + (f" ({hint})" if hint else ""), None)
            else:
                problem = None
            if problem:
                line, col, text = d.where(f"{d.face}.{f.name}" if own else f.name)
                what = f"{d.kind} card {d.name!r}" + (f" (face {d.face})" if own else "")
                errors.append(Diagnostic(d.path_of(f.name) or db.path, line, col,
                                         f"{what}: field {f.name!r}: {problem[0]}", problem[1], text))
    if errors:
        raise CardError(errors)
    from .errors import CheckError
    unused = []
    for name, act in model.actions.items():
        if name not in named:
            where = act.span.path or model.program.path
            unused.append(at(where, model.program.source_of(where), act.span,
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
                line, col, text = d.where()
                errors.append(Diagnostic(d.path or db.path, line, col,
                                         f"{d.kind} card {d.name!r} is already in {seen[key]}", None, text))
                continue
            first_line = d.where()[0]
            seen[key] = f"{d.path or db.path}:{first_line}" if first_line else (d.path or db.path)
            nd = attrs.evolve(d, index=len(defs))
            defs.append(nd)
            by_kind.setdefault(d.kind, []).append(nd)
    if errors:
        raise CardError(errors)
    kinds = {k for db in dbs for k in db.by_kind}
    return CardDB(" + ".join(db.path for db in dbs), tuple(defs),
                  {k: tuple(by_kind.get(k, ())) for k in sorted(kinds)},
                  {path: text for db in dbs for path, text in db.texts.items()})


def _formula_problem(model, kind, f, formula):
    """What is wrong with a card's formula for the rules: (message, hint) or None."""
    name, args, sorts = formula
    fn = model.funcs.get(name)
    if fn is None:
        return (f"{name!r} is not a definition of the ruleset", suggest(name, model.funcs))
    for a, sort in zip(args, sorts):
        if sort == "name" and a not in model.enum_values:
            return (f"{a!r} in {name}(...) is not an enum value of the ruleset",
                    suggest(a, model.enum_values) or 'a text is written in quotes: "..."')
    lead = model.formula_calls.get((kind.name, f.name))
    if lead is None:
        return None
    want = len(lead) + len(args)
    least = sum(1 for p in fn.params if p.default is None)
    if not least <= want <= len(fn.params):
        takes = str(len(fn.params)) if least == len(fn.params) else f"{least} to {len(fn.params)}"
        return (f"`{name}` takes {takes} arguments; `call` gives it {len(lead)} and this card {len(args)}",
                f"its parameters: {', '.join(p.name for p in fn.params)}")
    return None


def _entry(d: CardDef, kind: A.KindDecl) -> dict:
    """A card's fields as a database entry (its name included, an empty action as "none")."""
    entry = {"name": d.name}
    for f in kind.fields:
        value = d.fields[f.name]
        if f.type.name == "formula" and value is not None:
            value = formula_text(value)
        entry[f.name] = "none" if value is None and f.type.name in _NONE_OK else value
    return entry


def apply_edits(db: CardDB, edits, kinds: dict, program) -> CardDB:
    """The database after the layers' `amend card`, `replace card` and `remove card` edits, applied
    in order; raise CardError listing every edit that names no card (or an ambiguous one), a field
    the kind does not have, or a value of the wrong type, each at its place in the ruleset."""
    if not edits:
        return db
    errors: list[Diagnostic] = []
    defs = list(db.defs)
    conv = _converter()

    def err(span, message, hint=None):
        path = span.path or program.path
        errors.append(at(path, program.source_of(path), span, message, hint))

    for edit in edits:
        what = f'{edit.op} card {edit.kind + " " if edit.kind else ""}"{edit.name}"'
        if edit.kind is not None and edit.kind not in kinds:
            err(edit.span, f"`{what}`: `{edit.kind}` is not a card kind of the ruleset", suggest(edit.kind, kinds))
            continue
        found = [i for i, d in enumerate(defs) if d.name == edit.name and edit.kind in (None, d.kind)]
        if not found:
            names = [d.name for d in defs if edit.kind in (None, d.kind)]
            hint = suggest(edit.name, names, cutoff=0.6)
            err(edit.span, f"`{what}`: no card of that name in the databases below",
                hint.replace("`", '"') if hint else None)
            continue
        if len(found) > 1:
            kinds_of = [defs[i].kind for i in found]
            err(edit.span, f"`{what}`: cards of kinds {', '.join(kinds_of)} have that name",
                f'name the kind: `{edit.op} card {kinds_of[0]} "{edit.name}"`')
            continue
        i = found[0]
        old = defs[i]
        if edit.op == "remove":
            defs[i] = None
            defs = [d for d in defs if d is not None]
            continue
        kind = kinds[old.kind]
        entry = _entry(old, kind) if edit.op == "amend" else {"name": old.name}
        spans, bad = {}, False
        known = {f.name for f in kind.fields}
        for a in edit.assigns:
            if a.name == "name":
                err(a.span, "a card's name cannot be changed", "remove the card and add one with the new name")
                bad = True
            elif a.name not in known:
                err(a.span, f"`{what}`: {old.kind} cards have no field `{a.name}`", suggest(a.name, known))
                bad = True
            elif a.name in spans:
                err(a.span, f"`{what}`: field `{a.name}` is given twice")
                bad = True
            else:
                value = _literal(a.value)
                if value is None:
                    err(a.value.span, f"`{what}`: field `{a.name}`: a card's value is a number, true or false, "
                        "a text, a name or a list of numbers", "the card databases hold values, not expressions")
                    bad = True
                    continue
                entry[a.name] = value
                spans[a.name] = a
        problems = [(below[0] if below else "", message) for _, below, message, _ in _problems(entry, kind)
                    if (below and below[0] in spans) or (not below and not bad)]  # unknown: reported above
        for field, message in problems:
            err(spans[field].value.span if field in spans else edit.span, f"`{what}`: {message}")
        if bad or problems:
            continue
        _, fields = _structured(conv, entry, _kind_class(kind))
        for f in kind.fields:
            fields[f.name] = _data_value(f, fields[f.name])
        path = edit.span.path or program.path
        lines = (program.source_of(path) or "").splitlines()
        places = {} if edit.op == "replace" else dict(old.at)
        paths = {} if edit.op == "replace" else dict(old.paths)
        if edit.op == "replace":
            places[""] = (edit.span.line, edit.span.col, lines[edit.span.line - 1] if edit.span.line <= len(lines) else None)
            paths[""] = path
        for name, a in spans.items():
            line = a.value.span.line
            places[name] = (line, a.value.span.col, lines[line - 1] if 0 < line <= len(lines) else None)
            paths[name] = path
        defs[i] = attrs.evolve(old, fields=fields, at=places, paths=paths)
    if errors:
        raise CardError(errors)
    defs = [attrs.evolve(d, index=n) for n, d in enumerate(defs)]
    by_kind = {k: tuple(d for d in defs if d.kind == k) for k in db.by_kind}
    return CardDB(db.path, tuple(defs), by_kind, db.texts)


def with_faces(db: CardDB, kinds: dict) -> CardDB:
    """The database with every face of every card of a kind with faces as a definition of its own.

    A card's definition is its first face; its other faces follow all the cards' definitions, in
    card order (`face_defs`). The face a card has: the first, every hidden face, and every face its
    entry gives a table for. A face's values, the most specific winning: the kind's defaults, then
    the kind's `face` block, then the card's own values (not for a hidden face, which shows nothing
    of the card), then the card's table for that face. Every face definition has the implicit field
    `face`, the face's name."""
    if not any(k.faces for k in kinds.values()):
        return db
    _count_faces(db, kinds)
    defs, extra = [], []
    start = len(db.defs)
    for d in db.defs:
        kind = kinds[d.kind]
        if not kind.faces:
            defs.append(d)
            continue
        defaults = {f.name: _data_value(f, _literal(f.default)) for f in kind.fields if f.default is not None}
        given = {k: v for k, v in d.fields.items() if k in d.at}
        own = [f for i, f in enumerate(kind.faces) if i == 0 or f.hidden or f.name in d.face_values]
        made = []
        for f in own:
            values = dict(defaults)
            block = {a.name: _literal(a.value) if not (isinstance(a.value, A.Lit) and a.value.value is None) else "none"
                     for a in f.assigns}
            name = block.pop("name", f.name) if f.hidden else d.name
            values.update({k: _data_value(_field(kind, k), v) for k, v in block.items()})
            if not f.hidden:
                values.update(given)
                values.update({k: v for k, v in d.fields.items() if k not in values})  # required fields
            table = dict(d.face_values.get(f.name, {}))
            name = table.pop("name", name)
            values.update({k: _data_value(_field(kind, k), v) for k, v in table.items()})
            values["face"] = f.name
            made.append((f.name, name, values))
        indices = [d.index] + [start + len(extra) + i for i in range(len(made) - 1)]
        faces = tuple((face, i) for (face, _, _), i in zip(made, indices))
        for k, ((face, name, values), i) in enumerate(zip(made, indices)):
            nd = attrs.evolve(d, name=name, fields=values, index=i, face=face, faces=faces)
            (defs if k == 0 else extra).append(nd)
    by_kind = {k: tuple(d for d in defs if d.kind == k) for k in db.by_kind}
    return attrs.evolve(db, defs=tuple(defs), by_kind=by_kind, face_defs=tuple(extra))


def _count_faces(db: CardDB, kinds: dict):
    """Refuse, before any is made, more face definitions than MAX_FACE_DEFS: every card has every
    hidden face of its kind, so a few hundred of each would otherwise take gigabytes."""
    total = 0
    for d in db.defs:
        more = sum(1 for f in kinds[d.kind].faces[1:] if f.hidden or f.name in d.face_values)
        total += more
        if total > MAX_FACE_DEFS:
            line, col, text = d.where()
            raise CardError([Diagnostic(d.path or db.path, line, col, f"{d.kind} card {d.name!r}: the cards' "
                                        f"faces come to more than {MAX_FACE_DEFS:,} definitions, the most the "
                                        f"engine holds (this card has {more + 1} faces)",
                                        "every card has every hidden face of its kind: declare fewer hidden faces, "
                                        "or give fewer cards that many faces", text)])


def _field(kind, name):
    return next(f for f in kind.fields if f.name == name)


def _data_value(f, value):
    """A card value as the engine holds it: an empty action or formula is None, a formula is
    (definition name, arguments)."""
    if value == "none" and f.type.name in _NONE_OK:
        return None
    if f.type.name == "formula" and isinstance(value, str):
        return parse_formula(value)
    return value
