"""Train the book's long-run models and write them into the package (``make checkpoints``).

Every recipe of ``seqviz.checkpoints.recipes.RECIPES`` is trained from its seed on the CPU, one thread per
model, in ``--jobs`` worker processes at once (default 2: on a 2-core machine two one-thread workers train two
small models faster than one two-thread process trains them one after the other), longest first. Each writes
``seqviz/checkpoints/<name>/`` (weights.pt, vocab.json, log.csv, manifest.json). ``seqviz/checkpoints/RUN.json``
sums up every shipped model (wall and CPU seconds, budget, final metrics, from the manifests) and keeps one record
per invocation of this script (which models, how many workers, wall time, the machine's load average before and
after: other work on the machine slows the clock columns, never the weights).

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


def write_summary(invocation: dict | None = None) -> dict:
    """RUN.json: every shipped model's times, budget and final metrics (from its manifest), the stated budget of
    a full run on two one-thread workers, and the record of each invocation (``invocation`` is appended)."""
    from seqviz.checkpoints import FOLDER, names
    from seqviz.checkpoints.recipes import RECIPES

    path = FOLDER / "RUN.json"
    previous = json.loads(path.read_text()) if path.is_file() else {}
    models = {}
    for name in names():
        m = json.loads((FOLDER / name / "manifest.json").read_text())
        models[name] = {k: m[k] for k in ("parameters", "dtype", "wall_budget_s", "wall_s", "cpu_s", "train_cpu_s",
                                          "created", "git_commit", "final")}
        models[name]["loadavg_before"], models[name]["loadavg_after"] = m["machine"]["load_before"], m["machine"]["load_after"]
    budgets = sorted((r.wall_budget_s for r in RECIPES.values()), reverse=True)
    loads = [0.0, 0.0]
    for b in budgets:  # longest first onto the less loaded of two workers, as the script schedules them
        loads[loads.index(min(loads))] += b
    summary = {"wall_budget_s": max(loads), "wall_budget_note": "the recipes' budgets, longest first on two "
               "one-thread workers, on a quiet 2-core machine", "cpu_s_total": round(sum(m["cpu_s"] for m in models.values()), 1),
               "invocations": previous.get("invocations", []) + ([invocation] if invocation else []),
               "models": models}
    path.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


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
    write_summary({"created": started.isoformat(timespec="seconds"), "jobs": args.jobs, "threads_per_job": 1,
                   "models": [r["name"] for r in sorted(results, key=lambda r: list(RECIPES).index(r["name"]))],
                   "wall_s": round(wall, 1), "loadavg_before": load_before, "loadavg_after": _uptime()})
    size = sum(f.stat().st_size for f in FOLDER.rglob("*") if f.is_file() and f.suffix in (".pt", ".json", ".csv"))
    print(f"done in {wall / 60:.1f} min; /proc/loadavg after: {_uptime()}; "
          f"checkpoint files {size / 2**20:.1f} MiB", flush=True)


if __name__ == "__main__":
    main()
