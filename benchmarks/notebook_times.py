"""Execution time of every chapter notebook, in quick mode and in full mode.

Each notebook runs in a fresh kernel through nbclient, the way nbmake and the book do
(one thread per kernel, as in the Makefile). Writes ``benchmarks/results/notebook_times.csv``
and prints a markdown table with the budgets (quick <= 30 s, full <= 3 min).

Usage: ``python benchmarks/notebook_times.py [--modes quick full] [notebooks ...]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from _common import RESULTS, ROOT, write_csv

BUDGET = {"quick": 30.0, "full": 180.0}


def run(path: Path, mode: str) -> float:
    env = {"SEQVIZ_QUICK": "1" if mode == "quick" else "0", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        notebook = nbformat.read(path, as_version=4)
        client = NotebookClient(notebook, timeout=900, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        start = time.perf_counter()
        client.execute()
        return time.perf_counter() - start
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", nargs="+", default=["quick", "full"], choices=["quick", "full"])
    parser.add_argument("notebooks", nargs="*")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    rows = []
    for path in paths:
        row = {"notebook": path.stem}
        for mode in args.modes:
            row[mode] = run(path, mode)
            print(f"{path.stem}: {mode} {row[mode]:.1f} s", file=sys.stderr)
        rows.append(row)
    write_csv(RESULTS / "notebook_times.csv", rows)
    from seqviz.measure import markdown_table

    def seconds(mode):
        return lambda s: f"{s:.1f}" + ("" if s <= BUDGET[mode] else " (over)")

    print(markdown_table(rows, {"notebook": ("notebook", ""),
                                **{m: (f"{m} (s, budget {BUDGET[m]:.0f})", seconds(m)) for m in args.modes}}))
    over = sum(row[mode] > BUDGET[mode] for row in rows for mode in args.modes)
    print("total: " + ", ".join(f"{m} {sum(r[m] for r in rows):.0f} s" for m in args.modes))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
