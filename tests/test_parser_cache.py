"""The parser's tables are kept in the user's cache folder, and read back only from a safe one."""
from __future__ import annotations

import os

from rulesdsl import parser


def test_the_cache_lives_in_the_users_folder_named_by_the_grammar(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    one = parser._cache_file("grammar one")
    assert one and os.path.dirname(one) == str(tmp_path / "lfdsl")
    assert parser._cache_file("grammar two") != one  # another grammar, another file
    assert (os.stat(tmp_path / "lfdsl").st_mode & 0o777) == 0o700


def test_a_folder_others_can_write_to_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "lfdsl").mkdir()
    os.chmod(tmp_path / "lfdsl", 0o777)
    assert parser._cache_file("grammar") is False


def test_a_parser_loaded_from_its_cache_parses_as_the_one_built(tmp_path, monkeypatch):
    from lark import Lark
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = parser.GRAMMAR.read_text()
    cache = parser._cache_file(text)
    options = dict(parser="lalr", strict=True, propagate_positions=True, maybe_placeholders=True,
                   start=["start", "expr"])
    built = Lark(text, cache=cache, **options)
    assert os.path.getsize(cache) > 0
    loaded = Lark(text, cache=cache, **options)
    source = (parser.GRAMMAR.parent.parent / "rulesets" / "duel.lf").read_text()
    assert loaded.parse(source, start="start") == built.parse(source, start="start")
