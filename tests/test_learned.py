"""A learned evaluation (interpreter/bots/learned.py, features.py, interpreter/lab/train.py): the
entries of a position count only what its player sees; training is deterministic in any process; the
bots use a model kept beside the ruleset when it has no `evaluate` block, and play better for it;
a model of other rules, or a damaged file, is refused with a positioned reason."""
from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest

from interpreter.bots import learned
from interpreter.bots.evaluation import Evaluation
from interpreter.bots.features import FeatureLayout
from interpreter.engine import Engine
from interpreter.lab.train import train
from interpreter.tools.agents import make_agents, play

from .conftest import ROOT

LAB = ROOT / "tests" / "rulesets" / "lab"


@pytest.fixture()
def harvest(tmp_path):
    """A copy of harvest.lf and its cards in a folder of the test's own (models are kept beside it)."""
    for name in ("harvest.lf", "harvest.toml"):
        shutil.copy(LAB / name, tmp_path / name)
    return tmp_path / "harvest.lf"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Harvest at 2 players, trained once: the folder, the engine and the model (also kept)."""
    folder = tmp_path_factory.mktemp("trained")
    for name in ("harvest.lf", "harvest.toml"):
        shutil.copy(LAB / name, folder / name)
    engine = Engine.load(folder / "harvest.lf")
    model, report = train(engine, 2, games=20, iterations=2, seed=5)
    learned.save(model, learned.model_path(engine, 2))
    return folder, engine, model, report


def test_the_entries_count_only_what_the_player_sees():
    engine = Engine.load(ROOT / "tests" / "rulesets" / "hands.lf")
    layout = FeatureLayout(engine, 2)
    st = engine.new_game(2, 4)
    entry = {label: i for i, label in enumerate(layout.labels)}
    for me in (0, 1):
        x = layout.encode(engine.sight(st, me))
        # Two cards in each hand: the player's own are seen, the other's are not.
        assert x[entry["hand (seat +0): cards"]] == 2 and x[entry["hand (seat +0): unseen"]] == 0
        assert x[entry["hand (seat +1): cards"]] == 2 and x[entry["hand (seat +1): unseen"]] == 2
        assert x[entry["hand (seat +1): sum of value"]] == 0  # nothing of unseen cards but their number
        assert x[entry[f"own seat P{me + 1}"]] == 1
        values = sum(engine.card_fields[d]["value"] for d in _hand_defs(engine, st, me))
        assert x[entry["hand (seat +0): sum of value"]] == values
    # The stock is face down to everyone: its cards are all unseen.
    x = layout.encode(engine.sight(st, 0))
    assert x[entry["stock: unseen"]] == x[entry["stock: cards"]] > 0


def _hand_defs(engine, st, seat):
    return [d for name, owner, _, cards in engine.sight(st, seat).places if name == "hand" and owner == seat
            for d in cards]


def test_an_unseen_card_leaves_the_entries_unchanged_whatever_it_is():
    # A game that differs from the real one only in the other player's hand gives player 1 the same
    # entries, and the other player, who sees that hand, other ones.
    import random
    engine = Engine.load(ROOT / "tests" / "rulesets" / "hands.lf")
    layout = FeatureLayout(engine, 2)
    st = engine.new_game(2, 4)
    rng = random.Random(9)
    other = next(o for o in (engine.determinize(engine.view(st, 0), rng) for _ in range(50))
                 if sorted(_hand_defs(engine, o, 1)) != sorted(_hand_defs(engine, st, 1)))
    assert (layout.encode(engine.sight(st, 0)) == layout.encode(engine.sight(other, 0))).all()
    assert (layout.encode(engine.sight(st, 1)) != layout.encode(engine.sight(other, 1))).any()


def test_training_writes_the_same_file_in_any_process(harvest, tmp_path):
    def train_in_a_process(folder):
        folder.mkdir()
        for name in ("harvest.lf", "harvest.toml"):
            shutil.copy(harvest.parent / name, folder / name)
        r = subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "train", str(folder / "harvest.lf"),
                            "--games", "6", "--iterations", "2", "--seed", "3"],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert r.returncode == 0, r.stderr
        assert "wrote" in r.stdout and "Traceback" not in r.stderr
        return (folder / ".lfdsl" / "harvest-2p.model.json").read_bytes()
    one, two = train_in_a_process(tmp_path / "one"), train_in_a_process(tmp_path / "two")
    assert one == two
    engine = Engine.load(harvest)
    model, _ = train(engine, 2, games=6, iterations=2, seed=3)
    assert model.to_text().encode() == one
    other, _ = train(engine, 2, games=6, iterations=2, seed=4)
    assert other.to_text() != model.to_text()


def test_the_learned_greedy_beats_random_and_the_greedy_without_it(trained):
    _, engine, model, report = trained
    assert report[-1].hits is not None and report[-1].hits > 0.6  # the model before ranks a winner first
    for rival, at_least in (("random", 34), ("greedy:learned=0", 34)):
        wins = 0
        for g in range(40):
            seats = ["greedy", rival] if g % 2 == 0 else [rival, "greedy"]
            st = engine.new_game(2, 100 + g)
            play(engine, st, make_agents(",".join(seats), 2, 100 + g, engine))
            wins += f"P{seats.index('greedy') + 1}" in st.result["winners"]
        # 40 games, seats alternated: about 36 are won (90% in longer runs); a bot blind to the
        # points wins about half, so 34 cannot be reached by chance.
        assert wins >= at_least, (rival, wins)


def test_the_bots_use_the_kept_model_unless_told_not_to(trained):
    _, engine, model, _ = trained
    ev = Evaluation(engine)
    assert ev.model(2)[0].to_text() == model.to_text()
    assert Evaluation(engine, learned=0).model(2) is None
    assert ev.model(3) is None  # none was trained for three players
    st = engine.new_game(2, 1)
    layout = FeatureLayout(engine, 2)
    assert ev.standings(st) == [model.standing(layout.encode(engine.sight(st, p))) for p in (0, 1)]
    # A ruleset with an `evaluate` block keeps it.
    assert Evaluation(Engine.load(ROOT / "rulesets" / "duel.lf")).model(2) is None


def test_a_model_of_other_rules_is_refused_with_the_reason(trained, tmp_path):
    folder, _, model, _ = trained
    for name in ("harvest.lf", "harvest.toml"):
        shutil.copy(folder / name, tmp_path / name)
    (tmp_path / ".lfdsl").mkdir()
    shutil.copy(folder / ".lfdsl" / "harvest-2p.model.json", tmp_path / ".lfdsl")
    assert learned.find(Engine.load(tmp_path / "harvest.lf"), 2)[0] is not None
    # A card's value changes: the model no longer applies.
    toml = tmp_path / "harvest.toml"
    toml.write_text(toml.read_text().replace("value = 5", "value = 6"))
    model, why = learned.find(Engine.load(tmp_path / "harvest.lf"), 2)
    assert model is None
    assert "harvest-2p.model.json:1:" in why and "trained on other rules" in why
    assert "lfdsl train" in why
    # Back as it was trained on: the model applies again.
    toml.write_text(toml.read_text().replace("value = 6", "value = 5"))
    assert learned.find(Engine.load(tmp_path / "harvest.lf"), 2)[0] is not None


@pytest.mark.parametrize("change,message", [
    (lambda t: t.replace('"weight": ', '"weight": NaN, "x": ', 1), "`NaN` is not a JSON value"),
    (lambda t: t.replace('"scale": ', '"scale": -', 1), "`scale` must be at least 1e-09"),
    (lambda t: t.replace('"scale": 1.7', '"scale": 1e-300, "z": 1.7', 1), "`scale` must be at least 1e-09"),
    (lambda t: t.replace('"label": "round"', '"label": "rounds"', 1), "entry 1 is not `round`"),
    (lambda t: t.replace('"weight": ', '"weight": 1e400, "y": ', 1), "`weight` must be a number"),
    (lambda t: t.replace("lfdsl learned evaluation 1", "something else"), "not a learned evaluation"),
    (lambda t: "[" * 40 + "]" * 40, "nested more than"),
    (lambda t: t[:len(t) // 2], "not valid JSON"),
])
def test_a_damaged_model_file_is_a_positioned_error(trained, tmp_path, change, message):
    folder, engine, _, _ = trained
    path = tmp_path / "m.json"
    path.write_text(change((folder / ".lfdsl" / "harvest-2p.model.json").read_text()))
    with pytest.raises(learned.ModelError) as info:
        learned.read(path, engine, 2)
    text = str(info.value)
    assert message in text and str(path) in text and "Traceback" not in text


def test_train_and_run_say_which_evaluation_the_bots_use(harvest):
    def cli(*argv):
        return subprocess.run([sys.executable, "-m", "interpreter.tools.cli", *argv], capture_output=True,
                              text=True, cwd=ROOT, timeout=300)
    r = cli("run", str(harvest), "--agents", "greedy,random", "--quiet")
    assert r.returncode == 0 and "no `evaluate` block and no learned evaluation" in r.stderr
    r = cli("train", str(harvest), "--games", "4", "--iterations", "2")
    assert r.returncode == 0, r.stderr
    assert "iteration  finished  positions" in r.stdout and ".lfdsl/harvest-2p.model.json" in r.stdout
    r = cli("run", str(harvest), "--agents", "greedy,random", "--quiet")
    assert r.returncode == 0 and "the bots use the learned evaluation" in r.stderr
    r = cli("fit-eval", str(harvest), "--games", "4")
    assert r.returncode == 0, r.stderr
    assert "the learned evaluation ranked a winner first (chance: about 50%)" in r.stdout
    r = cli("tournament", str(harvest), "--bots", "greedy,random", "--games", "2", "--workers", "1")
    assert r.returncode == 0 and r.stderr.count("the bots use the learned evaluation") == 1
    r = cli("train", str(harvest), "--iterations", "0")
    assert r.returncode == 2 and "--iterations:1:1" in r.stderr and "Traceback" not in r.stderr


def test_a_model_is_never_read_or_written_through_a_link(trained, tmp_path):
    folder, engine, model, _ = trained
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("the first line of a file elsewhere\n")
    game = tmp_path / "game"
    game.mkdir()
    for name in ("harvest.lf", "harvest.toml"):
        shutil.copy(folder / name, game / name)
    engine = Engine.load(game / "harvest.lf")
    path = learned.model_path(engine, 2)
    path.parent.mkdir()
    path.symlink_to(secret)  # the model file is a link out of the project
    found, why = learned.find(engine, 2)
    assert found is None and "is a link" in why and "first line" not in why
    with pytest.raises(OSError):
        learned.save(model, path)
    assert secret.read_text() == "the first line of a file elsewhere\n"
    # A planted name beside it is not written through: the new file is made under a fresh name.
    path.unlink()
    planted = path.with_name(path.name + ".tmp")
    planted.symlink_to(secret)
    learned.save(model, path)
    assert secret.read_text() == "the first line of a file elsewhere\n" and not path.is_symlink()
    assert learned.find(engine, 2)[0] is not None
    # The folder itself a link to another folder: refused too.
    shutil.rmtree(path.parent)
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(folder / ".lfdsl" / "harvest-2p.model.json", tmp_path / "elsewhere")
    path.parent.symlink_to(tmp_path / "elsewhere")
    found, why = learned.find(engine, 2)
    assert found is None and "not a folder of its own" in why
    assert learned.writable(path) is not None


def test_training_again_beside_a_kept_model_writes_the_same_file(trained):
    # The first iteration plays with the ruleset's own evaluation, never with a model kept before.
    folder, engine, model, _ = trained
    again, _ = train(engine, 2, games=20, iterations=2, seed=5)
    assert learned.find(engine, 2)[0] is not None and again.to_text() == model.to_text()


def test_training_a_game_that_never_ends_says_so(tmp_path):
    shutil.copy(ROOT / "tests" / "rulesets" / "endless.lf", tmp_path / "endless.lf")
    shutil.copy(ROOT / "tests" / "rulesets" / "tiny.toml", tmp_path / "tiny.toml")
    r = subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "train", str(tmp_path / "endless.lf"),
                        "--games", "1", "--iterations", "1"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and "nothing to learn from" in r.stderr and "internal error" not in r.stderr
    assert not (tmp_path / ".lfdsl").exists()  # nothing written, not even the folder


def test_a_learned_utility_stays_within_zero_and_one(trained):
    _, engine, model, _ = trained
    ev = Evaluation(engine)
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("random", 2, 1), max_decisions=5)
    # A model whose weights make any lead enormous still gives utilities in [0, 1].
    loud = learned.LearnedModel(model.key, 2, model.labels, model.mean, model.scale, model.weights * 1e6,
                                model.bias, model.trained)
    for evaluation in (ev, Evaluation(engine, model=loud)):
        assert all(0.0 <= u <= 1.0 for u in evaluation.utilities(st))
    assert np.isfinite(loud.standing(FeatureLayout(engine, 2).encode(engine.sight(st, 0))))


def test_the_fit_is_the_ridge_solution_whichever_system_is_smaller():
    from interpreter.bots.learned import fit
    rng = np.random.default_rng(3)
    for rows, cols in ((40, 6), (6, 40)):
        X = rng.normal(size=(rows, cols)) * 3 + 1
        y = rng.random(rows)
        mean, scale, weights, bias = fit(X, y, ridge=0.5)
        Z = (X - mean) / scale
        primal = np.linalg.solve(Z.T @ Z + 0.5 * np.eye(cols), Z.T @ (y - bias))
        assert np.allclose(weights, primal, atol=1e-9)


def test_the_fit_does_not_depend_on_the_number_of_threads():
    # A product split among threads adds in another order: the fit runs on one, whatever is asked.
    script = ("import numpy as np, hashlib\nfrom interpreter.bots.learned import fit\n"
              "rng = np.random.default_rng(1)\nX = rng.normal(size=(1200, 900)); y = rng.random(1200)\n"
              "m, s, w, b = fit(X, y)\nprint(hashlib.sha256(w.tobytes()).hexdigest())\n")
    import os
    outs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True,
                           env=dict(os.environ, OPENBLAS_NUM_THREADS=n, OMP_NUM_THREADS=n)).stdout for n in ("1", "2")}
    assert len(outs) == 1


def test_a_layout_past_the_ceiling_is_refused_before_any_game(harvest, monkeypatch):
    from interpreter.bots import features
    monkeypatch.setattr(features, "MAX_ENTRIES", 10)
    with pytest.raises(features.LayoutTooLarge, match="lays out 28 entries, more than the 10"):
        FeatureLayout(Engine.load(harvest), 2)


def test_a_bot_on_a_learned_evaluation_plays_the_same_game_in_any_process(trained, tmp_path):
    folder, _, _, _ = trained
    traces = []
    for n in (1, 2):
        out = tmp_path / f"t{n}.jsonl"
        r = subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "run", str(folder / "harvest.lf"),
                            "--agents", "greedy,mcts:iterations=30", "--seed", "7", "--quiet", "--trace", str(out)],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert r.returncode == 0 and "the bots use the learned evaluation" in r.stderr, r.stderr
        traces.append(out.read_bytes())
    assert traces[0] == traces[1] and b'"choice"' in traces[0]


def test_a_small_grid_is_told_cell_by_cell():
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    layout = FeatureLayout(engine, 2)
    st = engine.new_game(2, 2)
    play(engine, st, make_agents("random", 2, 2), max_decisions=150)
    for me in (0, 1):
        x = layout.encode(engine.sight(st, me))
        for r in (0, 1):
            cells = [i for i, label in enumerate(layout.labels) if label.startswith(f"grid forest (seat +{r}): cell ")]
            filled = {int(layout.labels[i].split("cell ")[1].split()[0]) - 1 for i in cells if x[i] == 1}
            owner = (me + r) % 2
            assert filled == set(engine.sight(st, owner).cells[("forest", owner)])
            assert len(filled) == x[layout.labels.index(f"forest (seat +{r}): cards")] > 0


def test_the_solo_race_layer_has_neither_fire_nor_clock():
    # tests/rulesets/solo/race.lf (issue 28, point 5): Onibi never moves and no fire comes, so a
    # game alone is a race to the flowers; with `onibi_acts=1` he moves again, which shows the
    # layer is what stops him.
    for acts, moves in ((0, False), (1, True)):
        engine = Engine.load(ROOT / "tests" / "rulesets" / "solo" / "race.lf", params={"onibi_acts": str(acts)})
        st = engine.new_game(1, 3)
        start = dict(st.tracks["circle"])
        fires = [len(st.zones["circle_fires"])]
        while st.round < 6:
            play(engine, st, make_agents("random", 1, 3), max_decisions=1)
            fires.append(len(st.zones["circle_fires"]))
        assert (st.tracks["circle"]["onibi"] != start["onibi"]) == moves
        if not moves:
            assert all(b <= a for a, b in zip(fires, fires[1:]))  # fires only go away
    r = subprocess.run([sys.executable, "-m", "interpreter.tools.cli", "run", "tests/rulesets/solo/race.lf",
                        "--agents", "greedy", "--seed", "1", "--quiet"], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0 and "flowers reached the solo goal" in r.stdout


def test_the_penalty_is_the_one_that_predicts_held_out_games_best():
    from interpreter.bots.learned import RIDGES, choose_ridge
    rng = np.random.default_rng(4)
    held = np.arange(400) % 4 == 3
    # Many entries, few positions, one entry that matters a little: only a strong penalty generalises.
    X = rng.normal(size=(400, 600))
    y = 0.1 * X[:, 0] + rng.normal(size=400)
    ridge, errors = choose_ridge(X, y, held)
    assert ridge >= 1000 and errors[RIDGES.index(ridge)] == min(errors) < errors[0]
    # Few entries, a clean signal: the weakest penalty is best.
    X = rng.normal(size=(400, 5))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.01 * rng.normal(size=400)
    assert choose_ridge(X, y, held)[0] == RIDGES[0]
    # Nothing held out: the former fixed penalty.
    assert choose_ridge(X, y, np.zeros(400, dtype=bool)) == (1.0, [])


def test_a_long_game_gives_at_most_its_share_of_positions_spread_over_it():
    from interpreter.lab import train as training
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    layout = FeatureLayout(engine, 2)
    st = engine.new_game(2, 4)
    play(engine, st, make_agents("random", 2, 4))
    assert st.decisions > 2 * training.KEPT_PER_GAME
    positions, returns = training.collect(engine, 2, 4, make_agents("random", 2, 4), layout, 1)
    assert len(positions) == training.KEPT_PER_GAME and sorted(returns) == [0.0, 1.0]
    start = [layout.encode(engine.sight(engine.new_game(2, 4), p)) for p in range(2)]
    assert all((a == b).all() for a, b in zip(positions[0], start))  # the first position is kept
    rounds = [row[0][layout.labels.index("round")] for row in positions]
    assert rounds == sorted(rounds) and rounds[-1] > rounds[0]  # and the others spread to the end
