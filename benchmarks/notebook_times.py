"""Execution time of every chapter notebook, in quick mode and in full mode.

Each notebook runs in a fresh kernel through nbclient, the way nbmake and the book do
(one thread per kernel, as in the Makefile). Writes ``benchmarks/results/notebook_times.csv``
and prints a markdown table with the budgets (quick <= 30 s, full <= 3 min).

Usage: ``python benchmarks/notebook_times.py [--modes quick full] [notebooks ...]``
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
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
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "notebook_times.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["notebook", *args.modes])
        writer.writeheader()
        writer.writerows(rows)
    print("| notebook | " + " | ".join(f"{m} (s, budget {BUDGET[m]:.0f})" for m in args.modes) + " |")
    print("|---" * (len(args.modes) + 1) + "|")
    over = 0
    for row in rows:
        cells = []
        for mode in args.modes:
            flag = "" if row[mode] <= BUDGET[mode] else " (over)"
            over += bool(flag)
            cells.append(f"{row[mode]:.1f}{flag}")
        print(f"| {row['notebook']} | " + " | ".join(cells) + " |")
    print("total: " + ", ".join(f"{m} {sum(r[m] for r in rows):.0f} s" for m in args.modes))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
