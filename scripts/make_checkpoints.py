"""Train the book's long-run models and write them into the package (``make checkpoints``).

Every recipe of ``seqviz.checkpoints.recipes.RECIPES`` is trained from its seed on the CPU, one thread per
model, in ``--jobs`` worker processes at once (default 2: on a 2-core machine two one-thread workers train two
small models faster than one two-thread process trains them one after the other), longest first. Each writes
``seqviz/checkpoints/<name>/`` (weights.pt, vocab.json, log.csv, manifest.json). A summary of the whole run,
with the machine's load average before and after (other work on the machine slows the clock columns, never the
weights), goes to ``seqviz/checkpoints/RUN.json``.

Usage: ``python scripts/make_checkpoints.py [--jobs 2] [NAME ...]`` (no names: every recipe).
"""

from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _init_worker() -> None:
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"
    import torch

    torch.set_num_threads(1)


def _train(name: str) -> dict:
    from seqviz.checkpoints import FOLDER
    from seqviz.checkpoints.recipes import RECIPES
    from seqviz.checkpoints.trainer import train

    start = time.perf_counter()
    manifest = train(RECIPES[name], FOLDER / name, progress=False)["manifest"]
    return {"name": name, "wall_s": round(time.perf_counter() - start, 1), "cpu_s": manifest["cpu_s"],
            "wall_budget_s": manifest["wall_budget_s"], "parameters": manifest["parameters"],
            "dtype": manifest["dtype"], "final": manifest["final"]}


def _uptime() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None) -> None:
    from seqviz.checkpoints import FOLDER
    from seqviz.checkpoints.recipes import RECIPES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="recipes to train (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes, one thread each (default 2)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in RECIPES]
    if unknown:
        parser.error(f"unknown recipe(s) {unknown}; the recipes are {list(RECIPES)}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    chosen = sorted(args.names or RECIPES, key=lambda n: -RECIPES[n].wall_budget_s)  # longest first
    load_before, started, clock = _uptime(), datetime.datetime.now(), time.perf_counter()
    print(f"{len(chosen)} models, {args.jobs} workers; /proc/loadavg before: {load_before}", flush=True)
    results = []
    with multiprocessing.get_context("spawn").Pool(args.jobs, initializer=_init_worker, maxtasksperchild=1) as pool:
        for result in pool.imap_unordered(_train, chosen):
            results.append(result)
            final = ", ".join(f"{k} {v:.4g}" for k, v in result["final"].items() if isinstance(v, float))
            print(f"  {result['name']}: {result['wall_s']:.0f} s wall, {result['cpu_s']:.0f} s CPU "
                  f"(budget {result['wall_budget_s']:.0f} s), {result['dtype']}; {final}", flush=True)
    wall = time.perf_counter() - clock
    summary = {"created": started.isoformat(timespec="seconds"), "jobs": args.jobs, "threads_per_job": 1,
               "wall_s": round(wall, 1), "wall_budget_s": sum(RECIPES[n].wall_budget_s for n in chosen) / args.jobs,
               "loadavg_before": load_before, "loadavg_after": _uptime(),
               "models": sorted(results, key=lambda r: list(RECIPES).index(r["name"]))}
    if not args.names or set(args.names) == set(RECIPES):
        (FOLDER / "RUN.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    size = sum(f.stat().st_size for f in FOLDER.rglob("*") if f.is_file() and f.suffix in (".pt", ".json", ".csv"))
    print(f"done in {wall / 60:.1f} min; /proc/loadavg after: {summary['loadavg_after']}; "
          f"checkpoint files {size / 2**20:.1f} MiB", flush=True)


if __name__ == "__main__":
    main()
