"""The parser's tables and the trees of files parsed before are kept in the user's cache folder, and
read back only from a safe one."""
from __future__ import annotations

import os

from rulesdsl import parser, syntax


def test_the_cache_lives_in_the_users_folder_named_by_the_grammar(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    one = syntax._cache_file("grammar one")
    assert one and os.path.dirname(one) == str(tmp_path / "lfdsl")
    assert syntax._cache_file("grammar two") != one  # another grammar, another file
    assert (os.stat(tmp_path / "lfdsl").st_mode & 0o777) == 0o700


def test_a_folder_others_can_write_to_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "lfdsl").mkdir()
    os.chmod(tmp_path / "lfdsl", 0o777)
    assert syntax._cache_file("grammar") is False


def test_a_parser_loaded_from_its_cache_parses_as_the_one_built(tmp_path, monkeypatch):
    from lark import Lark
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = syntax.GRAMMAR.read_text()
    cache = syntax._cache_file(text)
    options = dict(parser="lalr", strict=True, propagate_positions=True, maybe_placeholders=True,
                   start=["start", "expr"])
    built = Lark(text, cache=cache, **options)
    assert os.path.getsize(cache) > 0
    loaded = Lark(text, cache=cache, **options)
    source = (syntax.GRAMMAR.parent.parent / "rulesets" / "duel.lf").read_text()
    assert loaded.parse(source, start="start") == built.parse(source, start="start")


DUEL = (syntax.GRAMMAR.parent.parent / "rulesets" / "duel.lf").read_text()


def test_a_file_parsed_before_is_read_back_and_equals_a_fresh_parse(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = parser.parse(DUEL, "rulesets/duel.lf")
    kept = [p.name for p in (tmp_path / "lfdsl").iterdir() if p.name.startswith("tree-")]
    assert len(kept) == 1

    def no_parsing(*args):
        raise AssertionError("parsed again")
    monkeypatch.setattr(syntax, "parse_text", no_parsing)
    again = parser.parse(DUEL, "rulesets/duel.lf")
    # The same tree (nodes compare by identity, so by what they print), and a copy of its own.
    assert repr(again) == repr(first) and again.items is not first.items
    # Another text, or the same text under another path (spans carry it), is parsed.
    for source, path in ((DUEL + "\n# one more line\n", "rulesets/duel.lf"), (DUEL, "elsewhere/duel.lf")):
        try:
            parser.parse(source, path)
        except AssertionError as exc:
            assert str(exc) == "parsed again"
        else:
            raise AssertionError(f"{path} was read back from another file's tree")


def test_an_unreadable_kept_tree_is_parsed_again_and_a_bad_file_is_never_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = parser.parse(DUEL, "rulesets/duel.lf")
    (kept,) = [p for p in (tmp_path / "lfdsl").iterdir() if p.name.startswith("tree-")]
    kept.write_bytes(b"not a pickle")
    assert repr(parser.parse(DUEL, "rulesets/duel.lf")) == repr(first)
    import pytest
    from rulesdsl.errors import ParseError
    with pytest.raises(ParseError):
        parser.parse("game {", "bad.lf")
    assert len([p for p in (tmp_path / "lfdsl").iterdir() if p.name.startswith("tree-")]) == 1


def test_trees_are_not_kept_in_a_folder_others_can_write_to(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "lfdsl").mkdir()
    os.chmod(tmp_path / "lfdsl", 0o777)
    assert parser.parse(DUEL, "rulesets/duel.lf").items
    assert not list((tmp_path / "lfdsl").iterdir())


def test_the_number_of_kept_trees_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(parser, "MAX_KEPT_TREES", 3)
    for i in range(6):
        parser.parse(f'game "G{i}" {{ players 2..2 }}', f"g{i}.lf")
    assert len([p for p in (tmp_path / "lfdsl").iterdir() if p.name.startswith("tree-")]) == 3


def test_a_file_read_back_does_not_load_the_grammars_parser(tmp_path):
    # Loading the parser library is most of a short command's start: a kept tree spares it.
    import subprocess
    import sys
    script = ("import sys\nfrom rulesdsl import parser\n"
              "parser.parse_file(sys.argv[1])\n"
              "print(sorted(m for m in ('lark', 'rulesdsl.syntax') if m in sys.modules))\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    root = syntax.GRAMMAR.parent.parent
    runs = [subprocess.run([sys.executable, "-c", script, "rulesets/duel.lf"], cwd=root, env=env,
                           capture_output=True, text=True, check=True).stdout for _ in range(2)]
    assert runs == ["['lark', 'rulesdsl.syntax']\n", "[]\n"]
