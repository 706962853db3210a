"""The engine is generic: no game vocabulary in rulesdsl/ or interpreter/.

A game word is found as a word of its own and as a part of a name (`count_water`, `fireCap`);
the words are the games' own (Living Forest, its Duel and Kodama, and Dartmoor, which comes next)
and every card name of `cards/*.toml`."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from .conftest import ROOT

GAME_WORDS = [
    "onibi", "kodamas?", "varans?", "sanki", "fragments?", "guardians?", "spirits?", "sacred",
    "fires?", "water", "winds?", "suns?", "flowers?", "seasons?", "summer", "winter", "autumn",
    "lotus", "forests?", "clearing", "help line", "moors?", "bogs?", "caves?", "dragonfl(?:y|ies)",
    "newts?", "tors?", "dartmoor", "heather", "lizards?", "owls?", "godwits?", "pipits?", "otters?", "beavers?",
]

# The words the style guide and the issue name: each must be caught.
NAMED_WORDS = ["onibi", "kodama", "varan", "sanki", "fragment", "guardian", "spirit", "sacred", "fire",
               "water", "sun", "wind", "flower", "season", "summer", "winter", "moor", "bog", "cave",
               "dragonfly", "newt", "tor"]

ENGINE_FOLDERS = ("rulesdsl", "interpreter")


def card_names(cards: Path = ROOT / "cards") -> set[str]:
    """Every card name of every card database in `cards`, the names of cards' faces included."""
    names = set()
    for path in cards.glob("*.toml"):
        for entries in tomllib.loads(path.read_text(encoding="utf-8")).values():
            for entry in entries:
                names.add(entry["name"])
                names.update(v["name"] for v in entry.values() if isinstance(v, dict) and "name" in v)
    return names


def game_word_pattern(words) -> re.Pattern:
    """A case-blind pattern matching any of `words` (regexes) as a whole word."""
    # Not `\b`: a card name may end in punctuation ("Roe Deer (Ash)").
    return re.compile(r"(?<!\w)(" + "|".join(words) + r")(?!\w)", re.IGNORECASE)


def words_of(line: str) -> str:
    """The line with the parts of names set apart: `count_water` -> `count water`,
    `fireCap` -> `fire Cap`, so a game word inside a name is a word of its own."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", line).replace("_", " ")


def engine_files(root: Path):
    """The engine's source files under `root`: Python modules and grammars of its folders."""
    for folder in ENGINE_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".py", ".lark"):
                yield path


def scan(root: Path, pattern: re.Pattern) -> list[str]:
    """`path:line: word` for every line of the engine's files under `root` holding a game word."""
    hits = []
    for path in engine_files(root):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = pattern.search(words_of(line))
            if m:
                hits.append(f"{path.relative_to(root).as_posix()}:{i}: {m.group(0)}")
    return hits


def all_game_words() -> list[str]:
    return GAME_WORDS + [re.escape(n) for n in sorted(card_names())]


def test_no_game_vocabulary_in_the_engine():
    hits = scan(ROOT, game_word_pattern(all_game_words()))
    assert not hits, "game words in the engine:\n" + "\n".join(hits)


def test_the_scan_reads_the_engine_files():
    files = [p.relative_to(ROOT).as_posix() for p in engine_files(ROOT)]
    assert {"interpreter/engine.py", "rulesdsl/parser.py", "rulesdsl/grammar.lark"} <= set(files)


def test_the_scan_reports_a_game_word_and_only_where_it_is(tmp_path):
    pattern = game_word_pattern(all_game_words())
    (tmp_path / "interpreter").mkdir()
    (tmp_path / "rulesdsl").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "interpreter" / "clean.py").write_text("def count(zone):\n    return len(zone)\n")
    assert scan(tmp_path, pattern) == []
    (tmp_path / "interpreter" / "rules.py").write_text("x = 1\n\ndef count_water(p):\n    return p\n")
    (tmp_path / "rulesdsl" / "grammar.lark").write_text("start: item*\nitem: \"Onibi\" NAME\n")
    (tmp_path / "rulesdsl" / "cap.py").write_text("fireCap = 7\n")
    (tmp_path / "rulesdsl" / "card.py").write_text('FAVOURITE = "Lynx"\n')
    (tmp_path / "docs" / "notes.md").write_text("water and fire\n")  # not an engine file
    (tmp_path / "interpreter" / "notes.txt").write_text("water\n")    # not a source file
    assert scan(tmp_path, pattern) == [
        "rulesdsl/cap.py:1: fire",
        "rulesdsl/card.py:1: Lynx",
        "rulesdsl/grammar.lark:2: Onibi",
        "interpreter/rules.py:3: water",
    ]


def test_words_that_only_contain_a_game_word_are_not_reported():
    pattern = game_word_pattern(all_game_words())
    for text in ("firewall = bogus + sunset", "caveat: windows", "def watered(seasoned): pass",
                 "newton = fragmentation"):
        assert pattern.search(words_of(text)) is None, text


def test_the_word_list_covers_the_named_words_and_every_card():
    names = card_names()
    assert len(names) > 100
    assert {"Lynx", "Anteater", "Kodama Spring", "Slot 1-1"} <= names  # one of each database
    pattern = game_word_pattern(all_game_words())
    missing = [w for w in NAMED_WORDS + sorted(names) if not pattern.fullmatch(w)]
    assert not missing, missing
    for word in ("Fires", "SPIRITS", "dragonflies", "Kodamas", "help line"):
        assert pattern.fullmatch(word), word
