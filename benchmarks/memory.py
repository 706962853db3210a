"""Peak memory of a long simulation: runs `lfdsl simulate` for many games in a child process and
prints the largest resident set size (RSS) any of its processes reached, with the time taken.

    python benchmarks/memory.py                                # base 2p, 10,000 random games, 1 worker
    python benchmarks/memory.py --games 2000 --workers 2 --agents greedy --ruleset rulesets/duel.lf

The peak is the kernel's own count (`ru_maxrss` of the waited-for processes): with workers it is
the largest of the main process and each worker, not their sum, so the script also prints the
worker count. The simulation's JSON summary goes to a temporary file and its games are checked.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LFDSL = Path(sys.executable).with_name("lfdsl")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="rulesets/base.lf")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--agents", default="random")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    program = [str(LFDSL)] if LFDSL.exists() else [sys.executable, "-m", "interpreter.tools.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "summary.json"
        start = time.perf_counter()
        subprocess.run(program + ["simulate", args.ruleset, "--players", str(args.players), "--games",
                                  str(args.games), "--agents", args.agents, "--workers", str(args.workers),
                                  "--json", str(out)], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        summary = json.loads(out.read_text())
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # Linux counts in KiB
    print(f"{args.ruleset} {args.players}p, {args.games:,} games ({args.agents}), {args.workers} worker(s): "
          f"{summary['finished']:,} finished, {summary['errors']} errors, in {seconds:.0f} s")
    print(f"peak RSS of the largest process: {peak_mb:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
