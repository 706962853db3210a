"""CPU time of a whole `lfdsl check RULESET` process (start-up, imports, parsing, checking, compiling),
the least of several runs, for each shipped ruleset.

    python benchmarks/startup.py                  # every shipped ruleset, least of 5 runs
    python benchmarks/startup.py --runs 9 rulesets/base.lf

Python caches the bytecode of imported modules in `__pycache__` folders, as it does on any machine
unless PYTHONDONTWRITEBYTECODE is set; this script compiles the project's modules first (with
`compileall`, into those same gitignored folders), so that the runs time what a user's repeated
"""
from __future__ import annotations

import argparse
import compileall
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu_of(argv: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rulesets", nargs="*", default=["rulesets/base.lf", "rulesets/kodama.lf", "rulesets/solo.lf",
                                                     "rulesets/duel.lf"])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    env = dict(os.environ)
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set here: the project's bytecode is written once by compileall")
    for package in ("interpreter", "rulesdsl"):
        compileall.compile_dir(ROOT / package, quiet=1, workers=1)
    # `python -m` from ROOT runs this tree's code, whatever the environment has installed (an
    # editable install of another clone, a console script of an older layout).
    program = [sys.executable, "-m", "interpreter.tools.cli"]
    for ruleset in args.rulesets:
        times = [cpu_of(program + ["check", ruleset], env) for _ in range(args.runs)]
        print(f"{ruleset:<24} least {min(times):.3f} s CPU  (median {sorted(times)[len(times) // 2]:.3f}, "
              f"{args.runs} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
