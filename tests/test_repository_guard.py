"""The guard in conftest.py that fails a run leaving files in the repository: it sees what it must
see, and only that, so it can neither miss a stray file nor fail on a cache nobody controls."""
from __future__ import annotations

import hypothesis
from hypothesis.configuration import storage_directory

from .conftest import NOT_WATCHED, ROOT, tree_listing


def test_the_listing_sees_a_new_file_and_its_folder(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "a.lf").write_text("")
    before = tree_listing(tmp_path)
    assert before == {"rules", "rules/a.lf"}
    (tmp_path / "rules" / "out").mkdir()
    (tmp_path / "rules" / "out" / "t.jsonl").write_text("{}\n")
    (tmp_path / ".trace.jsonl").write_text("{}\n")
    assert tree_listing(tmp_path) - before == {"rules/out", "rules/out/t.jsonl", ".trace.jsonl"}


def test_the_listing_leaves_out_caches_and_the_environment(tmp_path):
    (tmp_path / "a.py").write_text("")
    before = tree_listing(tmp_path)
    for folder in (".venv/lib", "pkg/__pycache__", ".git/objects"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "x").write_text("")
    (tmp_path / "pkg" / "b.py").write_text("")
    assert tree_listing(tmp_path) - before == {"pkg", "pkg/b.py"}
    assert NOT_WATCHED == {".venv", ".git", "__pycache__"}


def test_the_listing_of_the_repository_holds_its_sources():
    listing = tree_listing(ROOT)
    assert {"tests/conftest.py", "rulesets/base.lf", "interpreter/engine.py"} <= listing
    assert not any(part in NOT_WATCHED for p in listing for part in p.split("/"))


def test_hypothesis_keeps_no_database_and_writes_outside_the_repository():
    assert hypothesis.settings().database is None
    home = storage_directory("constants", intent_to_write=False).path
    assert ROOT not in home.parents
