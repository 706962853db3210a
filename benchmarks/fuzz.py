"""Mutation fuzzing of the rules files, card databases, scenarios, traces and saved games: how each mutant ends.

    python benchmarks/fuzz.py                               # 2,000 mutants of each kind
    python benchmarks/fuzz.py --kind cards --mutants 200 --show 3
    python benchmarks/fuzz.py --kind trace --workers 1 --progress
    python benchmarks/fuzz.py --json fuzz.json --keep /tmp/bad   # keep every bad mutant's tree

A mutant is one real file with one to three seeded mutations (tests/fuzzing.py). It runs
`lfdsl check` then, if accepted, `lfdsl run --quiet --seed 1` (rules and cards), `lfdsl test`
(scenarios), `lfdsl replay` (traces written by `lfdsl run --trace`) or the loading step of
`lfdsl play --resume` (saved games), each in a forked child under a wall-clock timeout and a CPU
limit. The goal is 0 leaks (a line of /etc/passwd or of the environment printed), 0 hangs,
0 tracebacks, 0 internal errors, 0 Python wording, and every rejection positioned
(`file:line:col: ...`). Exit 1 if any mutant ended badly.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fuzzing import BAD, KINDS, OUTCOMES, Runner, make_mutants, shown, signature, tally  # noqa: E402

COLUMNS = [("mutants", "mutants"), ("accepted", "accepted"), ("rejected-positioned", "rej-pos"),
           ("rejected-unpositioned", "rej-unpos"), ("traceback", "traceback"), ("internal-error", "internal"),
           ("hang", "hang"), ("leak", "leak"), ("python-wording", "py-wording"), ("positioned_share", "pos-share"),
           ("seconds", "seconds"), ("per_s", "mutants/s")]


def fuzz_kind(kind: str, args) -> tuple[dict, list]:
    """Run one kind's mutants; returns the counts and the results."""
    mutants = make_mutants(kind, args.mutants, args.seed)
    done = [0]

    def progress(_result):
        done[0] += 1
        if args.progress and done[0] % 100 == 0:
            print(f"  {kind}: {done[0]}/{len(mutants)}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    with Runner(workers=args.workers, timeout=args.timeout, cpu_seconds=args.cpu, keep=args.keep) as runner:
        results = runner.run(mutants, progress)
    seconds = time.perf_counter() - start
    counts = tally(results)
    counts.update(kind=kind, seconds=round(seconds, 1), per_s=round(len(results) / seconds, 1))
    return counts, results


def show(kind: str, results, k: int) -> None:
    """K examples of each bad outcome, then every distinct failure signature with its count."""
    for outcome in BAD:
        bad = [r for r in results if r.outcome == outcome]
        if not bad:
            continue
        print(f"\n== {kind}: {outcome} ({len(bad)}), {min(k, len(bad))} example(s)")
        for r in bad[:k]:
            print(f"-- mutant {r.mutant.index} of {r.mutant.source}: {r.mutant.description}")
            print(f"   command: {' '.join(r.argv)}   (exit {r.exit_code}{', tree ' + r.tree if r.tree else ''})")
            for line in shown(r).splitlines()[-12:] if outcome == "traceback" else shown(r).splitlines()[:4]:
                print(f"   | {line[:200]}")
    sigs = collections.Counter(signature(r) for r in results if r.outcome in BAD)
    if sigs:
        print(f"\n== {kind}: {len(sigs)} distinct failure signature(s)")
        for sig, n in sigs.most_common():
            print(f"{n:6}  {sig}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=KINDS + ("all",), default="all")
    ap.add_argument("--mutants", type=int, default=2000, help="mutants per kind")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="children running at once")
    ap.add_argument("--timeout", type=float, default=10.0, help="wall-clock seconds per command")
    ap.add_argument("--cpu", type=int, default=8, help="CPU seconds per command (RLIMIT_CPU)")
    ap.add_argument("--json", metavar="FILE", help="write the counts and every bad result here")
    ap.add_argument("--show", type=int, default=0, metavar="K", help="print K examples of each bad outcome")
    ap.add_argument("--keep", metavar="DIR", help="copy the tree of every bad mutant into DIR")
    ap.add_argument("--progress", action="store_true", help="report every 100 mutants on stderr")
    args = ap.parse_args(argv)
    kinds = KINDS if args.kind == "all" else (args.kind,)
    rows, bad = [], []
    for kind in kinds:
        counts, results = fuzz_kind(kind, args)
        rows.append(counts)
        bad += [r for r in results if r.outcome in BAD]
        if args.show:
            show(kind, results, args.show)
    print()
    print(f"{'kind':<10}" + "".join(f"{label:>11}" for _, label in COLUMNS))
    for row in rows:
        print(f"{row['kind']:<10}" + "".join(f"{row[key]:>11}" for key, _ in COLUMNS))
    if args.json:
        payload = {"seed": args.seed, "rows": rows, "outcomes": list(OUTCOMES),
                   "bad": [{"kind": r.mutant.kind, "index": r.mutant.index, "source": r.mutant.source,
                            "mutation": r.mutant.description, "outcome": r.outcome, "argv": list(r.argv),
                            "exit": r.exit_code, "signature": signature(r), "leak": r.leak, "stderr": shown(r)[-4000:],
                            "tree": r.tree} for r in bad]}
        Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
