"""Two one-thread workers or one two-thread process? The choice behind ``make checkpoints --jobs 2``.

Trains the first ``--steps`` steps of two small recipes (``charlm-lstm-m`` and ``charlm-transformer-s`` by
default) three ways and prints the wall time of each: one after the other with one thread, one after the other
with two threads, and both at once in two one-thread processes. Writes benchmarks/results/checkpoint_workers.csv.
The machine's load average is printed beside the numbers: other work on it changes them.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _run(args):
    name, steps, threads = args
    import torch

    torch.set_num_threads(threads)
    from seqviz.checkpoints.recipes import RECIPES
    from seqviz.checkpoints.trainer import train

    start = time.perf_counter()
    train(RECIPES[name], None, stop_after=steps, progress=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("names", nargs="*", default=["charlm-lstm-m", "charlm-transformer-s"])
    args = parser.parse_args()
    ctx = multiprocessing.get_context("spawn")
    rows = []
    for label, threads, jobs in (("sequential, 1 thread", 1, 1), ("sequential, 2 threads", 2, 1),
                                 ("2 workers x 1 thread", 1, 2)):
        load = os.getloadavg()[0]
        start = time.perf_counter()
        with ctx.Pool(jobs) as pool:
            pool.map(_run, [(n, args.steps, threads) for n in args.names])
        wall = time.perf_counter() - start
        rows.append({"setting": label, "wall_s": round(wall, 1), "loadavg_1min_before": round(load, 2)})
        print(f"{label:24s} {wall:7.1f} s   (load average before: {load:.2f})", flush=True)
    out = ROOT / "benchmarks" / "results" / "checkpoint_workers.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
