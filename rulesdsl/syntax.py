"""Text to typed AST with the grammar's parser (Lark). Lark trees never leave this module, which
parser.py loads only when a text is not in the cache folder."""
from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

import attrs
from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast as A
from . import limits
from .errors import ParseError, at, make
from .files import named_path
from .parser import _cache_folder

GRAMMAR = Path(__file__).with_name("grammar.lark")

# Terminals matched by a pattern rather than a fixed text, in the words a user knows them by.
_PATTERN_NAMES = {"NAME": "a name", "INT": "a number", "STRING": "a string", "$END": "end of file"}


@functools.cache
def _parser() -> Lark:
    """The parser, built once per process; its tables are kept between processes in the user's
    cache folder (building them is most of the time a short command takes)."""
    text = GRAMMAR.read_text()
    return Lark(text, parser="lalr", strict=True, propagate_positions=True, maybe_placeholders=True,
                start=["start", "expr"], cache=_cache_file(text))


def _cache_file(grammar: str) -> str | bool:
    """A file for Lark's tables under the user's own cache folder, named by the grammar's hash;
    False (no cache) when there is no safe folder."""
    folder = _cache_folder()
    if folder is None:
        return False
    tag = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    return os.path.join(folder, f"parser-{tag}.lark")


class _ToAst(Transformer):
    """One method per grammar rule; each returns an AST node or a plain Python value."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def span(self, meta) -> A.Span:
        if getattr(meta, "empty", True):
            return A.Span(0, 0, 0, 0, self.path)
        return A.Span(meta.line, meta.column, meta.end_line, meta.end_column, self.path)

    def capped(self, tok, ceiling: int, what: str) -> int:
        """The value of an INT token, refused at its position above an engine-wide ceiling."""
        digits = str(tok).lstrip("0")
        # Compared as text first: a number of thousands of digits is never converted.
        if len(digits) > len(str(ceiling)) or int(digits or "0") > ceiling:
            span = A.Span(tok.line, tok.column, tok.end_line, tok.end_column, self.path)
            shown = str(tok) if len(str(tok)) <= 30 else f"of {len(str(tok)):,} digits"
            raise _GrammarMisuse(A.Lit(None, span), f"{what} {shown} is more than the engine allows "
                                 f"({ceiling:,})")
        return int(digits or "0")

    # -- terminals
    def INT(self, t):
        value = self.capped(t, limits.MAX_INT, "the number")
        return Token("INT", value, t.start_pos, t.line, t.column, t.end_line, t.end_column, t.end_pos)

    def STRING(self, t):
        return Token("STRING", str(t)[1:-1], t.start_pos, t.line, t.column, t.end_line, t.end_column,
                     t.end_pos)

    # -- expressions
    @v_args(meta=True)
    def int_lit(self, meta, c):
        return A.Lit(int(c[0]), self.span(meta))

    @v_args(meta=True)
    def str_lit(self, meta, c):
        return A.Lit(str(c[0]), self.span(meta))

    @v_args(meta=True)
    def true_lit(self, meta, c):
        return A.Lit(True, self.span(meta))

    @v_args(meta=True)
    def false_lit(self, meta, c):
        return A.Lit(False, self.span(meta))

    @v_args(meta=True)
    def none_lit(self, meta, c):
        return A.Lit(None, self.span(meta))

    @v_args(meta=True)
    def name(self, meta, c):
        return A.Name(str(c[0]), self.span(meta))

    def args(self, c):
        return tuple(c)

    @v_args(meta=True)
    def list_lit(self, meta, c):
        return A.ListLit(c[0] or (), self.span(meta))

    @v_args(meta=True)
    def attr(self, meta, c):
        return A.Attr(c[0], str(c[1]), self.span(meta))

    @v_args(meta=True)
    def index(self, meta, c):
        return A.Index(c[0], c[1], self.span(meta))

    def element(self, c):
        tok = c[0]
        return A.Element(str(tok), A.Span(tok.line, tok.column, tok.end_line, tok.end_column, self.path))

    def named_arg(self, c):
        return _NamedArg(c[0], c[1])

    def call_args(self, c):
        return tuple(c)

    @v_args(meta=True)
    def call(self, meta, c):
        args = list(c[1] or ())
        named = [i for i, a in enumerate(args) if isinstance(a, _NamedArg)]
        if named and (named != [1] or len(args) != 2):
            raise _GrammarMisuse(args[named[-1]].elem, "only the second of two arguments can name the element "
                                 "it is evaluated for, as in `sum(xs, c: c.value)`")
        elem = args[1].elem if named else None
        if named:
            args[1] = args[1].value
        return A.Call(c[0], tuple(args), self.span(meta), elem)

    @v_args(meta=True)
    def neg(self, meta, c):
        return A.Unary("-", c[0], self.span(meta))

    @v_args(meta=True)
    def not_op(self, meta, c):
        return A.Unary("not", c[0], self.span(meta))

    def cmp_op(self, c):
        return str(c[0])

    add_op = mul_op = cmp_op

    @v_args(meta=True)
    def binop(self, meta, c):
        return A.Binary(c[1], c[0], c[2], self.span(meta))

    @v_args(meta=True)
    def compare(self, meta, c):
        return A.Binary(c[1], c[0], c[2], self.span(meta))

    @v_args(meta=True)
    def member(self, meta, c):
        return A.Binary("in", c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def and_op(self, meta, c):
        return A.Binary("and", c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def or_op(self, meta, c):
        return A.Binary("or", c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def range(self, meta, c):
        return A.Range(c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def filter(self, meta, c):
        return A.Filter(c[0], c[2], self.span(meta), c[1])

    @v_args(meta=True)
    def cond(self, meta, c):
        return A.Cond(c[0], c[1], c[2], self.span(meta))

    # -- declarations
    @v_args(meta=True)
    def game_decl(self, meta, c):
        opts = dict(c[1:])
        if "name" in opts:
            raise _GrammarMisuse(A.Lit(None, self.span(meta)),
                                 "the game's name is the text after `game`; `name` is for `amend game`")
        lo, hi, default = opts.get("players", (1, 1, None))
        cards = tuple(v for k, v in c[1:] if k == "cards")
        return A.Game(str(c[0]), lo, hi, default if default is not None else lo, cards,
                      opts.get("round_limit", 100), opts.get("step_budget", 100_000), self.span(meta),
                      opts.get("seats", ()), opts.get("decision_limit", 100_000), opts.get("hand_limit", 100))

    def opt_players(self, c):
        hi = self.capped(c[1], limits.MAX_PLAYERS, "a game of")
        return ("players", (int(c[0]), hi, None if c[2] is None else int(c[2])))

    @v_args(meta=True)
    def opt_cards(self, meta, c):
        # Resolved against the folder of the file that names it, so layers can live anywhere.
        written = str(c[0])
        return ("cards", A.FileRef(named_path(written, self.path), written, self.span(meta)))

    def opt_round_limit(self, c):
        return ("round_limit", self.capped(c[0], limits.MAX_ROUND_LIMIT, "`round_limit`"))

    def opt_decision_limit(self, c):
        return ("decision_limit", self.capped(c[0], limits.MAX_DECISION_LIMIT, "`decision_limit`"))

    def opt_hand_limit(self, c):
        return ("hand_limit", self.capped(c[0], limits.MAX_HAND_LIMIT, "`hand_limit`"))

    def opt_seats(self, c):
        return ("seats", tuple(str(x) for x in c))

    def opt_name(self, c):
        return ("name", str(c[0]))

    def opt_step_budget(self, c):
        return ("step_budget", self.capped(c[0], limits.MAX_STEP_BUDGET, "`step_budget`"))

    @v_args(meta=True)
    def param_decl(self, meta, c):
        return A.ParamDecl(str(c[0]), c[1], self.span(meta), c[2])

    @v_args(meta=True)
    def enum_decl(self, meta, c):
        return A.EnumDecl(str(c[0]), tuple(str(x) for x in c[1:]), self.span(meta))

    @v_args(meta=True)
    def type_named(self, meta, c):
        return A.TypeRef("named", (), self.span(meta), str(c[0]))

    @v_args(meta=True)
    def type_formula(self, meta, c):
        return A.TypeRef("formula", (), self.span(meta))

    @v_args(meta=True)
    def type_enum_set(self, meta, c):
        return A.TypeRef("set", tuple(str(x) for x in c), self.span(meta))

    @v_args(meta=True)
    def type_named_set(self, meta, c):
        return A.TypeRef("named_set", (), self.span(meta), str(c[0]))

    @v_args(meta=True)
    def kind_decl(self, meta, c):
        items = c[1:]

        def of(cls):
            return tuple(x for x in items if isinstance(x, cls))
        faces = []
        listed = {}  # face name -> its place in `faces`, while no block has given it data
        for x in items:  # `faces a, b` names them in order; a `face` block gives one data (or adds it)
            if isinstance(x, tuple) and x[0] == "faces":
                for f in x[1]:
                    listed.setdefault(f.name, len(faces))
                    faces.append(f)
            elif isinstance(x, A.FaceDecl) and x.name in listed:
                faces[listed.pop(x.name)] = x
            elif isinstance(x, A.FaceDecl):
                faces.append(x)
        counters = tuple(attrs.evolve(x, card_kind=str(c[0])) for x in of(A.CounterDecl))
        return A.KindDecl(str(c[0]), of(A.FieldDecl), self.span(meta), counters, of(A.SlotDecl), tuple(faces))

    @v_args(meta=True)
    def slot_decl(self, meta, c):
        opts = dict(c[3:])
        return A.SlotDecl(str(c[0]), c[1], str(c[2]), opts.get("visibility", "public"), opts.get("limit"),
                          self.span(meta), opts.get("per_player", False))

    @v_args(meta=True)
    def faces_decl(self, meta, c):
        span = self.span(meta)
        return ("faces", [A.FaceDecl(str(x), False, (), A.Span(x.line, x.column, x.end_line, x.end_column, span.path))
                          for x in c])

    def face_hidden(self, c):
        return True

    @v_args(meta=True)
    def face_decl(self, meta, c):
        return A.FaceDecl(str(c[0]), bool(c[1]), tuple(c[2:]), self.span(meta))

    @v_args(meta=True)
    def field_decl(self, meta, c):
        return A.FieldDecl(str(c[0]), c[1], c[2], self.span(meta))

    @v_args(meta=True)
    def type_int(self, meta, c):
        return A.TypeRef("int", (), self.span(meta))

    @v_args(meta=True)
    def type_bool(self, meta, c):
        return A.TypeRef("bool", (), self.span(meta))

    @v_args(meta=True)
    def type_text(self, meta, c):
        return A.TypeRef("text", (), self.span(meta))

    @v_args(meta=True)
    def type_action(self, meta, c):
        return A.TypeRef("action", (), self.span(meta))

    @v_args(meta=True)
    def type_int_list(self, meta, c):
        return A.TypeRef("list", (), self.span(meta))

    @v_args(meta=True)
    def type_enum(self, meta, c):
        return A.TypeRef("enum", tuple(str(x) for x in c), self.span(meta))

    def shape_pile(self, c):
        return "pile"

    def shape_row(self, c):
        return "row"

    def shape_bag(self, c):
        return "bag"

    def zopt_hidden(self, c):
        return ("visibility", "hidden")

    def zopt_hidden_top(self, c):
        return ("visibility", "top")

    def zopt_private(self, c):
        return ("visibility", "private")

    def zopt_others(self, c):
        return ("visibility", "others")

    def zopt_per_key(self, c):
        return ("by", str(c[0]))

    def zopt_public(self, c):
        return ("visibility", "public")

    def zopt_per_player(self, c):
        return ("per_player", True)

    def zopt_limit(self, c):
        return ("limit", c[0])

    def _size(self, word, seen_by: str):
        if str(word) != "size":
            span = A.Span(word.line, word.column, word.end_line, word.end_column, self.path)
            raise _GrammarMisuse(A.Lit(None, span), f"unexpected `{word}` among a zone's options: write "
                                 f"`size {seen_by}` to keep how many cards it holds from some players")
        return ("size", seen_by)

    def zsize_private(self, c):
        return self._size(c[0], "private")

    def zsize_hidden(self, c):
        return self._size(c[0], "hidden")

    @v_args(meta=True)
    def zone_decl(self, meta, c):
        opts = dict(c[3:])
        return A.ZoneDecl(str(c[0]), c[1], str(c[2]), opts.get("visibility", "public"),
                          opts.get("per_player", False), opts.get("limit"), self.span(meta), opts.get("by"),
                          size=opts.get("size", "public"))

    def counter_map(self, c):
        return True

    def copt_per_player(self, c):
        return ("per_player", True)

    def copt_min(self, c):
        return ("low", c[0])

    def copt_max(self, c):
        return ("high", c[0])

    def copt_private(self, c):
        return ("visibility", "private")

    def copt_hidden(self, c):
        return ("visibility", "hidden")

    def copt_public(self, c):
        return ("visibility", "public")

    @v_args(meta=True)
    def counter_decl(self, meta, c):
        opts = dict(c[3:])
        return A.CounterDecl(str(c[0]), bool(c[1]), c[2], opts.get("per_player", False),
                             opts.get("low"), opts.get("high"), self.span(meta),
                             visibility=opts.get("visibility", "public"))

    @v_args(meta=True)
    def display_decl(self, meta, c):
        return A.DisplayDecl(tuple(e for group in c for e in group), self.span(meta))

    def _display(self, what, meta, name, text=None):
        text_span = A.Span(text.line, text.column, text.end_line, text.end_column, self.path) if text is not None else None
        return A.DisplayEntry(what, str(name), None if text is None else str(text), self.span(meta), text_span)

    @v_args(meta=True)
    def disp_label(self, meta, c):
        return [self._display("label", meta, c[0], c[1])]

    @v_args(meta=True)
    def disp_card(self, meta, c):
        return [self._display("card", meta, c[0], c[1])]

    @v_args(meta=True)
    def disp_cell(self, meta, c):
        return [self._display("cell", meta, c[0], c[1])]

    @v_args(meta=True)
    def disp_score(self, meta, c):
        return [A.DisplayScore(str(c[0]), str(c[1]), c[2], self.span(meta))]

    @v_args(meta=True)
    def disp_internal(self, meta, c):
        return [A.DisplayEntry("internal", str(n), None, A.Span(n.line, n.column, n.end_line, n.end_column, self.path))
                for n in c]

    @v_args(meta=True)
    def marker_decl(self, meta, c):
        return A.MarkerDecl(str(c[0]), self.span(meta))

    @v_args(meta=True)
    def piece_decl(self, meta, c):
        return A.PieceDecl(str(c[0]), str(c[1]), self.span(meta))

    @v_args(meta=True)
    def data_assign(self, meta, c):
        return A.DataAssign(str(c[0]), c[1], self.span(meta))

    def assigns(self, c):
        return tuple(c)

    def assign_block(self, c):
        return ("space", tuple(int(x) for x in c[:-1]), c[-1])

    @v_args(meta=True)
    def track_decl(self, meta, c):
        fields = tuple(x for x in c[2:] if isinstance(x, A.FieldDecl))
        spaces = tuple((x[1], x[2]) for x in c[2:] if isinstance(x, tuple))
        size = self.capped(c[1], limits.MAX_TRACK_SPACES, "a track of")
        return A.TrackDecl(str(c[0]), size, fields, spaces, self.span(meta))

    def cell_lit(self, c):
        return (int(c[0]), int(c[1]))

    def grid_cell_field(self, c):
        return ("cell_field", c[0])

    def grid_line_field(self, c):
        return ("line_field", c[0])

    def grid_hole(self, c):
        return ("hole", tuple(c))

    def grid_at(self, c):
        return ("at", (tuple(c[:-1]), c[-1]))

    def grid_column(self, c):
        return ("column", (tuple(int(x) for x in c[:-1]), c[-1]))

    def grid_row(self, c):
        return ("row", (tuple(int(x) for x in c[:-1]), c[-1]))

    def grid_edges(self, c):
        return ("edges", tuple(str(x) for x in c))

    @v_args(meta=True)
    def grid_decl(self, meta, c):
        name, w, h, kind = str(c[0]), int(c[1]), int(c[2]), str(c[3])
        if w * h > limits.MAX_GRID_CELLS:
            raise _GrammarMisuse(A.Lit(None, self.span(meta)), f"a grid of {w} x {h} cells is more than "
                                 f"the engine allows ({limits.MAX_GRID_CELLS:,} cells)")
        per_player = False
        visibility = "public"
        parts: dict[str, list] = {k: [] for k in ("cell_field", "line_field", "hole", "at", "column", "row", "edges")}
        for item in c[4:]:
            if item == ("per_player", True):
                per_player = True
            elif item[0] == "visibility" and item[1] != "top":
                visibility = item[1]
            elif item[0] in parts:
                parts[item[0]].append(item[1])
            else:
                raise _GrammarMisuse(A.Lit(None, self.span(meta)), "only `per player`, `public`, `private` and `hidden` are allowed on a grid")
        holes = tuple(cell for group in parts["hole"] for cell in group)
        if len(parts["edges"]) > 1:
            raise _GrammarMisuse(A.Lit(None, self.span(meta)), "a grid has one `edges` line")
        edges = parts["edges"][0] if parts["edges"] else ()
        return A.GridDecl(name, w, h, kind, per_player, tuple(parts["cell_field"]),
                          tuple(parts["line_field"]), holes, tuple(parts["at"]),
                          tuple(parts["column"]), tuple(parts["row"]), self.span(meta), edges, visibility)

    def params(self, c):
        return tuple(c)

    @v_args(meta=True)
    def param(self, meta, c):
        return A.Param(str(c[0]), c[2], self.span(meta), c[1])

    @v_args(meta=True)
    def ptype_named(self, meta, c):
        return A.ParamType(str(c[0]), self.span(meta))

    @v_args(meta=True)
    def ptype_list(self, meta, c):
        return A.ParamType(None, self.span(meta), c[0])

    @v_args(meta=True)
    def func_decl(self, meta, c):
        return A.FuncDecl(str(c[0]), c[1] or (), c[2], self.span(meta))

    @v_args(meta=True)
    def action_decl(self, meta, c):
        return A.ActionDecl(str(c[0]), c[1] or (), c[2], c[3], self.span(meta))

    @v_args(meta=True)
    def routine_decl(self, meta, c):
        return A.ActionDecl(str(c[0]), c[1] or (), None, c[2], self.span(meta), True)

    @v_args(meta=True)
    def setup_decl(self, meta, c):
        return A.SetupDecl(c[0], self.span(meta))

    @v_args(meta=True)
    def hand_decl(self, meta, c):
        start, finish, cond, reason = (), (), None, None
        for kind, *rest in c:
            if kind == "start":
                start = start + tuple(rest[0])
            elif kind == "finish":
                finish = finish + tuple(rest[0])
            else:
                cond, reason = rest
        return A.HandDecl(start, cond, reason, finish, self.span(meta))

    def hand_start(self, c):
        return ("start", c[0])

    def hand_finish(self, c):
        return ("finish", c[0])

    def hand_end(self, c):
        return ("end", c[0], str(c[1]) if c[1] is not None else None)

    @v_args(meta=True)
    def end_hand_stmt(self, meta, c):
        return A.EndHand(str(c[0]) if c[0] is not None else None, self.span(meta))

    @v_args(meta=True)
    def round_decl(self, meta, c):
        return A.RoundDecl(tuple(c), self.span(meta))

    def mode_once(self, c):
        return ("once", None, None)

    def mode_each(self, c):
        return ("each", str(c[0]), None)

    def mode_turns(self, c):
        return ("turns", str(c[0]), c[1])

    @v_args(meta=True)
    def phase_decl(self, meta, c):
        mode, var, start = c[1]
        return A.PhaseDecl(str(c[0]), mode, var, start, c[2], self.span(meta))

    def ev_enter(self, c):
        return "enter"

    def ev_leave(self, c):
        return "leave"

    def ev_place(self, c):
        return "place"

    def ev_fill(self, c):
        return "fill"

    @v_args(meta=True)
    def trigger_decl(self, meta, c):
        return A.TriggerDecl(c[0], str(c[1]), tuple(str(x) for x in c[2:-1]), c[-1], self.span(meta))

    @v_args(meta=True)
    def reach_decl(self, meta, c):
        return A.TriggerDecl("reach", "", (str(c[0]),), c[2], self.span(meta), c[1])

    @v_args(meta=True)
    def score_decl(self, meta, c):
        return A.ScoreDecl(str(c[0]), c[1], self.span(meta))

    @v_args(meta=True)
    def victory_decl(self, meta, c):
        scores = tuple(x for x in c[2:-1] if isinstance(x, A.ScoreDecl))
        reasons = tuple(x for x in c[2:-1] if isinstance(x, tuple))
        win = reasons[0][0]
        for cond, _ in reasons[1:]:
            win = A.Binary("or", win, cond, cond.span)
        return A.VictoryDecl(str(c[0]), str(c[1]), scores, win, c[-1], self.span(meta), reasons)

    @v_args(meta=True)
    def evaluate_decl(self, meta, c):
        return A.EvaluateDecl(str(c[0]), tuple(c[1:-1]), c[-1], self.span(meta))

    def win_clause(self, c):
        return (c[0], None if c[1] is None else str(c[1]))

    # -- layering
    @v_args(meta=True)
    def extends_decl(self, meta, c):
        return A.Extends(str(c[0]), self.span(meta))

    @v_args(meta=True)
    def replace_decl(self, meta, c):
        return A.Replace(c[0], self.span(meta))

    def _card_edit(self, op, c, meta):
        kind = None if c[0] is None else str(c[0])
        return A.CardEdit(op, kind, str(c[1]), tuple(c[2:]), self.span(meta))

    @v_args(meta=True)
    def amend_card(self, meta, c):
        return self._card_edit("amend", c, meta)

    @v_args(meta=True)
    def replace_card(self, meta, c):
        return self._card_edit("replace", c, meta)

    @v_args(meta=True)
    def remove_card(self, meta, c):
        return self._card_edit("remove", c, meta)

    def _amend(self, what, name, items, meta):
        return A.Amend(what, name, tuple(items), self.span(meta))

    @v_args(meta=True)
    def amend_phase(self, meta, c):
        return self._amend("phase", str(c[0]), c[1:], meta)

    @v_args(meta=True)
    def amend_setup(self, meta, c):
        return self._amend("setup", None, c, meta)

    @v_args(meta=True)
    def amend_kind(self, meta, c):
        return self._amend("kind", str(c[0]), c[1:], meta)

    @v_args(meta=True)
    def amend_track(self, meta, c):
        return self._amend("track", str(c[0]), [("space", x[1], x[2]) for x in c[1:]], meta)

    @v_args(meta=True)
    def amend_game(self, meta, c):
        return self._amend("game", None, c, meta)

    @v_args(meta=True)
    def amend_def(self, meta, c):
        return self._amend("def", c[0].name, (c[0],), meta)

    @v_args(meta=True)
    def amend_round(self, meta, c):
        return self._amend("round", None, c, meta)

    @v_args(meta=True)
    def am_before(self, meta, c):
        return A.Amendment("before", str(c[0]), c[1], self.span(meta))

    @v_args(meta=True)
    def am_after(self, meta, c):
        return A.Amendment("after", str(c[0]), c[1], self.span(meta))

    @v_args(meta=True)
    def am_replace(self, meta, c):
        return A.Amendment("replace", str(c[0]), c[1], self.span(meta))

    @v_args(meta=True)
    def am_remove(self, meta, c):
        return A.Amendment("remove", str(c[0]), (), self.span(meta))

    @v_args(meta=True)
    def am_first(self, meta, c):
        return A.Amendment("first", None, c[0], self.span(meta))

    @v_args(meta=True)
    def am_last(self, meta, c):
        return A.Amendment("last", None, c[0], self.span(meta))

    @v_args(meta=True)
    def ra_before(self, meta, c):
        return A.Amendment("before", str(c[0]), (c[1],), self.span(meta))

    @v_args(meta=True)
    def ra_after(self, meta, c):
        return A.Amendment("after", str(c[0]), (c[1],), self.span(meta))

    # -- statements
    @v_args(meta=True)
    def step_stmt(self, meta, c):
        return A.Step(str(c[0]), c[1], self.span(meta))

    def block(self, c):
        return tuple(c)

    @v_args(meta=True)
    def let_stmt(self, meta, c):
        return A.Let(str(c[0]), c[1], self.span(meta))

    def op_set(self, c):
        return "="

    def op_add(self, c):
        return "+="

    def op_sub(self, c):
        return "-="

    @v_args(meta=True)
    def set_stmt(self, meta, c):
        return A.Set(c[0], c[1], c[2], self.span(meta))

    def dir_top(self, c):
        return False

    def dir_bottom(self, c):
        return True

    @v_args(meta=True)
    def move_stmt(self, meta, c):
        return A.Move(c[0], c[2], c[1], self.span(meta))

    @v_args(meta=True)
    def draw_stmt(self, meta, c):
        return A.Draw(str(c[0]), c[1], c[2], c[3], self.span(meta))

    @v_args(meta=True)
    def shuffle_stmt(self, meta, c):
        return A.Shuffle(c[0], self.span(meta))

    @v_args(meta=True)
    def reveal_stmt(self, meta, c):
        return A.Reveal(c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def look_stmt(self, meta, c):
        return A.Reveal(c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def create_stmt(self, meta, c):
        return A.Create(c[0], c[1], c[2], self.span(meta))

    def elif_part(self, c):
        return (c[0], c[1])

    def else_part(self, c):
        return ("else", c[0])

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        other = None
        for part in c[2:]:
            if part[0] == "else":
                other = part[1]
            else:
                branches.append(part)
        return A.If(tuple(branches), other, self.span(meta))

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        return A.For(str(c[0]), c[1], c[2], self.span(meta))

    @v_args(meta=True)
    def repeat_stmt(self, meta, c):
        return A.Repeat(c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def while_stmt(self, meta, c):
        return A.While(c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def break_stmt(self, meta, c):
        return A.Break(self.span(meta))

    @v_args(meta=True)
    def return_stmt(self, meta, c):
        return A.Return(self.span(meta))

    def by_part(self, c):
        return c[0]

    @v_args(meta=True)
    def option(self, meta, c):
        return A.Option(str(c[0]), c[1], c[2], self.span(meta))

    @v_args(meta=True)
    def choose_options(self, meta, c):
        prompt = str(c[0]) if c[0] is not None else None
        return A.ChooseOptions(prompt, c[1], tuple(c[2:]), self.span(meta))

    @v_args(meta=True)
    def choose_item(self, meta, c):
        prompt, values = c[2] if c[2] is not None else (None, ())
        return A.ChooseItem(str(c[0]), c[1], c[3], c[5], self.span(meta), tuple(c[4] or ()), prompt, values)

    def prompt_part(self, c):
        return str(c[0]), tuple(c[1:])

    @v_args(meta=True)
    def pass_stmt(self, meta, c):
        return A.Pass(str(c[0]), c[1], self.span(meta))

    def pass_next(self, c):
        return 1

    def pass_previous(self, c):
        return -1

    @v_args(meta=True)
    def together_stmt(self, meta, c):
        return A.Together(str(c[0]), c[1], (c[3],), self.span(meta), c[2] is not None)

    def label_part(self, c):
        return tuple(c)

    @v_args(meta=True)
    def pick_stmt(self, meta, c):
        prompt = str(c[5]) if c[5] is not None else None
        return A.Pick(str(c[1]), c[2], c[3], c[4], c[6], c[7], self.span(meta), c[0] is not None, prompt)

    @staticmethod
    def _action_call(call, word: str):
        if not isinstance(call, A.Call):
            raise _GrammarMisuse(call, f"`{word}` needs an action call, such as `{word} act(p)`")
        if call.elem is not None:
            raise _GrammarMisuse(call.elem, f"the arguments of `{word}` are values: they name no element")
        return call

    @v_args(meta=True)
    def do_stmt(self, meta, c):
        return A.Do(self._action_call(c[0], "do"), self.span(meta))

    @v_args(meta=True)
    def perform_stmt(self, meta, c):
        return A.Do(self._action_call(c[0], "perform"), self.span(meta), True)

    @v_args(meta=True)
    def win_stmt(self, meta, c):
        return A.Win(c[0], str(c[1]), self.span(meta))

    @v_args(meta=True)
    def lose_stmt(self, meta, c):
        return A.Win(c[0], str(c[1]), self.span(meta), True)

    @v_args(meta=True)
    def turn_stmt(self, meta, c):
        return A.Turn(c[0], c[1], self.span(meta))

    @v_args(meta=True)
    def end_stmt(self, meta, c):
        return A.EndGame(str(c[0]) if c[0] is not None else None, self.span(meta))

    @v_args(meta=True)
    def actions_stmt(self, meta, c):
        names = tuple(str(x) for x in c[2:-1])
        limit = c[-1]
        unless = limit[2] if limit and limit[0] == "unless" else None
        most = limit[2] if limit and limit[0] == "most" else None
        return A.Actions(c[0], c[1], names, unless, self.span(meta), most, limit[1] if limit else None)

    def limit_unless(self, c):
        return ("unless", c[0], c[1])

    def limit_most(self, c):
        return ("most", c[0], c[1])

    @v_args(meta=True)
    def advance_stmt(self, meta, c):
        jump_var = str(c[3]) if c[3] is not None else None
        pass_var = str(c[5]) if c[5] is not None else None
        return A.Advance(c[0], str(c[1]), c[2], jump_var, c[4] or (), self.span(meta), pass_var, c[6] or ())

    @v_args(meta=True)
    def put_stmt(self, meta, c):
        return A.Put(c[0], str(c[1]), c[2], self.span(meta))

    @v_args(meta=True)
    def place_stmt(self, meta, c):
        return A.Place(c[0], c[1], c[2], self.span(meta))

    @v_args(meta=True)
    def give_stmt(self, meta, c):
        return A.Give(str(c[0]), c[1], self.span(meta))

    @v_args(meta=True)
    def log_stmt(self, meta, c):
        return A.Log(str(c[0]), tuple(c[1:]), self.span(meta))

    def start(self, c):
        return tuple(c)


@attrs.frozen
class _NamedArg:
    """An argument that names its element (`c: c.value`), until the call takes it apart."""

    elem: A.Element
    value: object


class _GrammarMisuse(Exception):
    def __init__(self, node, message):
        super().__init__(message)
        self.node = node
        self.message = message


_FIRST = ["`}`", "`)`", "`]`", "`{`", "`;`", "`,`", "`=`", "`==`"]


@functools.cache
def _terminal_texts() -> dict[str, str]:
    """Every terminal of the grammar (anonymous ones too) -> what the user would type for it."""
    out = dict(_PATTERN_NAMES)
    for t in _parser().terminals:
        if t.name in out:
            continue
        if t.pattern.type == "str":
            out[t.name] = f"`{t.pattern.value}`"
        else:
            out[t.name] = f"a {t.name.lower().replace('_', ' ')}"
    return out


def readable_terminal(name: str) -> str:
    """What a user can type for one grammar terminal: `=`, `{`, `round`, a name, a number..."""
    return _terminal_texts().get(name, "a symbol")


def _expected(exc: UnexpectedInput) -> str:
    wanted = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ()
    interactive = getattr(exc, "interactive_parser", None)
    if interactive is not None:
        # The LALR table's own set is merged across contexts; replaying the reductions is exact.
        try:
            wanted = interactive.accepts() or wanted
        except Exception:  # noqa: BLE001 - an imprecise hint is better than none
            pass
    names = {readable_terminal(e) for e in wanted}
    if not names:
        return ""
    # A missing bracket is the most common slip, so brackets come first, then other punctuation,
    # then keywords, then "a name", "a number"...
    ordered = sorted(names, key=lambda n: (_FIRST.index(n) if n in _FIRST else len(_FIRST),
                                           not n.startswith("`"), n.strip("`").isalpha(), n))
    if len(ordered) > 12:
        ordered = ordered[:12] + ["..."]
    return "expected " + ", ".join(ordered)


# Deeper rule trees than this would exhaust the interpreter's recursion in the later steps.
MAX_NESTING = 256

# Tokens that can only start a top-level declaration: meeting one where a `}` would do means a
# block above it was left open.
_ITEM_STARTS = {"GAME", "PARAM", "KIND", "ZONE", "COUNTER", "MARKER", "PIECE", "ROUTINE", "TRACK",
                "GRID", "DEF", "SETUP", "ROUND", "VICTORY", "EVALUATE", "EXTENDS", "AMEND"}


_BRACKETS = re.compile(r'"[^"\n]*"|#[^\n]*|[{(\[]|[})\]]')


def _too_many_brackets(source: str):
    """Line and column of the first bracket nested more than 2 * MAX_NESTING deep, or None. A quick
    scan of the text (strings and comments skipped) that refuses grossly deep nesting before the
    parser spends time on it; nesting just past the limit is found on the tree, where the message
    can point at the construct."""
    depth = 0
    for m in _BRACKETS.finditer(source):
        ch = m.group()[0]
        if ch in "{([":
            depth += 1
            if depth > 2 * MAX_NESTING:
                pos = m.start()
                return source.count("\n", 0, pos) + 1, pos - source.rfind("\n", 0, pos)
        elif ch in "})]":
            depth = max(depth - 1, 0)
    return None


def parse_text(source: str, path: str, start: str):
    """The items of a rules file (`start`) or one expression (`expr`); ParseError on bad syntax."""
    deep = _too_many_brackets(source)
    if deep is not None:
        raise ParseError([make(path, source, deep[0], deep[1], f"nested too deeply (more than {MAX_NESTING} levels)",
                               "split it with `let`, a `def` or a `routine`")])
    try:
        tree = _parser().parse(source, start=start)
    except UnexpectedToken as exc:
        tok = exc.token
        at_end = tok.type == "$END"
        what = "end of file" if at_end else f"`{tok}`"
        hint = _expected(exc) or None
        line, col = (exc.line, exc.column) if exc.line not in (None, -1) else _end(source)
        message = f"unexpected {what}"
        before = _token_before(source, tok.start_pos) if tok.type == "ON" else None
        if before is not None and before.type in ("REPLACE", "AMEND"):
            raise ParseError([make(path, source, before.line, before.column,
                                   f"a trigger cannot be {'replaced' if before.type == 'REPLACE' else 'amended'}: "
                                   "layers can only add triggers",
                                   f"drop `{before}`: the trigger then runs after the lower layers' triggers "
                                   "for the same event", end_line=before.end_line, end_col=before.end_column)]) from None
        if at_end or (tok.type in _ITEM_STARTS and "`}`" in (hint or "")):
            message += _unclosed(source, len(source) if at_end else tok.start_pos)
        ends = {} if at_end else {"end_line": getattr(tok, "end_line", 0) or 0,
                                  "end_col": getattr(tok, "end_column", 0) or 0}
        raise ParseError([make(path, source, line, col, message, hint, **ends)]) from None
    except UnexpectedCharacters as exc:
        ch = source[exc.pos_in_stream] if exc.pos_in_stream < len(source) else "?"
        raise ParseError([make(path, source, exc.line, exc.column, f"unexpected character `{ch}`",
                               _expected(exc) or None, end_line=exc.line, end_col=exc.column + 1)]) from None
    except UnexpectedEOF as exc:
        line, col = _end(source)
        raise ParseError([make(path, source, line, col, "unexpected end of file" + _unclosed(source, len(source)),
                               _expected(exc) or None)]) from None
    deep = _too_deep(tree)
    if deep is not None:
        raise ParseError([make(path, source, deep[0], deep[1], f"nested too deeply (more than {MAX_NESTING} levels)",
                               "split it with `let`, a `def` or a `routine`")]) from None
    try:
        result = _ToAst(path).transform(tree)
    except VisitError as exc:
        inner = exc.orig_exc
        if isinstance(inner, _GrammarMisuse):
            span = getattr(inner.node, "span", A.Span(1, 1))
            raise ParseError([at(path, source, span, inner.message)]) from None
        raise
    return result


def _tokens_before(source: str, upto: int) -> list:
    """The tokens of `source` that start before offset `upto` (as far as the text can be split)."""
    tokens = []
    try:
        for tok in _parser().lex(source):
            if tok.start_pos >= upto:
                break
            tokens.append(tok)
    except UnexpectedInput:
        pass
    return tokens


def _token_before(source: str, upto: int):
    tokens = _tokens_before(source, upto)
    return tokens[-1] if tokens else None


def _too_deep(tree) -> tuple[int, int] | None:
    """Where the rule tree first goes deeper than MAX_NESTING levels (the start of that part)."""
    todo = [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            return (meta.line, meta.column) if not getattr(meta, "empty", True) else (1, 1)
        todo.extend((child, depth + 1) for child in reversed(node.children) if isinstance(child, Tree))
    return None


def _unclosed(source: str, upto: int) -> str:
    """`: the block of action `x` opened at line 3 is not closed`, or "" if every `{` is closed.

    The innermost block still open where the parser stopped is named.
    """
    tokens = _tokens_before(source, upto)
    opened = []
    for i, tok in enumerate(tokens):
        if tok.type == "LBRACE":
            opened.append(i)
        elif tok.type == "RBRACE" and opened:
            opened.pop()
    if not opened:
        return ""
    i = opened[-1]
    return f": {_block_name(tokens, i)} opened at line {tokens[i].line} is not closed"


_BLOCK_HEADS = {"GAME", "KIND", "TRACK", "GRID", "ACTION", "ROUTINE", "SETUP", "ROUND", "PHASE", "ON",
                "VICTORY", "EVALUATE", "IF", "ELIF", "ELSE", "FOR", "REPEAT", "WHILE", "CHOOSE", "OPTION", "PICK",
                "STEP", "JUMPING", "PASSING", "AT", "BEFORE", "AFTER", "REPLACE", "FIRST", "LAST"}
_NAMED = {"KIND": "kind", "TRACK": "track", "GRID": "grid", "ACTION": "action", "ROUTINE": "routine",
          "PHASE": "phase", "OPTION": "option", "STEP": "step"}
_SINGLE_BLOCKS = {"GAME": "game", "SETUP": "setup", "ROUND": "round", "VICTORY": "victory",
                  "EVALUATE": "evaluate"}


def _block_name(tokens, brace: int) -> str:
    """What the `{` at tokens[brace] belongs to, from the words before it."""
    before = tokens[max(0, brace - 6):brace]
    if any(t.type == "VICTORY" for t in before):
        return "the victory block"
    if any(t.type == "EVALUATE" for t in before):
        return "the evaluate block"
    depth = 0
    for h in range(brace - 1, -1, -1):
        t = tokens[h]
        if t.type in ("RPAR", "RSQB"):
            depth += 1
        elif t.type in ("LPAR", "LSQB"):
            depth -= 1
        elif t.type in ("LBRACE", "RBRACE", "SEMICOLON"):
            break
        elif depth == 0 and t.type in _BLOCK_HEADS:
            return _head_text(tokens, h)
    return "a block"


def _head_text(tokens, h: int) -> str:
    t = tokens[h]
    nxt = str(tokens[h + 1]) if h + 1 < len(tokens) else ""
    amend = h > 0 and tokens[h - 1].type == "AMEND"
    if t.type in _SINGLE_BLOCKS:
        return f"the block of `amend {_SINGLE_BLOCKS[t.type]}`" if amend else f"the {_SINGLE_BLOCKS[t.type]} block"
    if t.type in _NAMED:
        return f"the block of `amend {_NAMED[t.type]} {nxt}`" if amend else f"the block of {_NAMED[t.type]} `{nxt}`"
    if t.type == "ON":
        if nxt == "reach":
            return "the block of the trigger `on reach`"
        zone = str(tokens[h + 2]) if h + 2 < len(tokens) else ""
        return f"the block of the trigger `on {nxt} {zone}`"
    if t.type in ("BEFORE", "AFTER", "REPLACE"):
        return f"the block of the amendment `{t} {nxt}`"
    if t.type in ("FIRST", "LAST"):
        return f"the block of the amendment `{t}`"
    return f"the block of the `{t}` statement" if t.type != "AT" else "the block of `at` data"


def _end(source: str) -> tuple[int, int]:
    lines = source.splitlines() or [""]
    return len(lines), len(lines[-1]) + 1
