"""Train the book's long-run models and write them into the package (``make checkpoints``).

Every recipe of ``seqviz.checkpoints.recipes.RECIPES`` is trained from its seed on the CPU, one thread per
model, in ``--jobs`` worker processes at once (default 2: on a 2-core machine two one-thread workers train two
small models faster than one two-thread process trains them one after the other), longest first. Each writes
``seqviz/checkpoints/<name>/`` (weights.pt, vocab.json, log.csv, manifest.json). ``seqviz/checkpoints/RUN.json``
sums up every shipped model (wall and CPU seconds, budget, final metrics, from the manifests) and keeps one record
per invocation of this script (which models, how many workers, wall time, the machine's load average before and
after: other work on the machine slows the clock columns, never the weights).

Usage: ``python scripts/make_checkpoints.py [--jobs 2] [NAME ...]`` (no names: every recipe).

``--estimate`` (``make checkpoints-estimate``, a few minutes) trains nothing to keep. It predicts how long the full
run takes on this machine. Each recipe's first steps are retrained from its seed (the first ``--probe-steps``,
rounded up to a logged row), in the same two one-thread workers. Their training CPU seconds are compared with the
shipped log's at the same step. Each model's CPU seconds are scaled by that ratio, then scheduled as the run
schedules them. The table is written to benchmarks/results/checkpoints_estimate.csv. CPUs differ: the same code
has needed up to about twice the CPU time of the machine that trained the shipped files (per model, a recurrent
model's ratio can differ from a Transformer's on the same CPU).
"""

from __future__ import annotations

import argparse
import csv
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


def _probe(args: tuple[str, int]) -> dict:
    from seqviz.checkpoints.recipes import RECIPES
    from seqviz.checkpoints.trainer import train

    name, steps = args
    row = train(RECIPES[name], None, stop_after=steps, progress=False)["rows"][-1]
    return {"name": name, "step": row["step"], "cpu_s": row["cpu_seconds"], "wall_s": row["seconds"]}


def probe_step(recipe, steps: int) -> int:
    """The first logged step at or after ``steps`` (the log has a row every ``eval_every`` steps)."""
    return min(recipe.steps, -(-steps // recipe.eval_every) * recipe.eval_every)


def schedule(costs: dict[str, float], jobs: int = 2) -> float:
    """Wall seconds of running ``costs`` (seconds per model) longest first, each onto the worker that is free
    first, as this script's pool runs them."""
    loads = [0.0] * jobs
    for cost in sorted(costs.values(), reverse=True):
        loads[loads.index(min(loads))] += cost
    return max(loads)


def predict(probes: list[dict], shipped_logs: dict[str, list[dict]], manifests: dict[str, dict],
            jobs: int = 2) -> dict:
    """Each model's CPU seconds on this machine and the run's wall time, from the probes.

    A probe is ``{"name", "step", "cpu_s", "wall_s"}``: training CPU seconds at ``step`` here. The shipped log's
    CPU seconds at that step give the ratio; the manifest's whole-run CPU seconds (training, logging and the final
    evaluation) are scaled by it. Wall is CPU on a quiet machine."""
    rows = []
    for p in probes:
        shipped = next((r for r in shipped_logs[p["name"]] if r["step"] == p["step"]), None)
        if shipped is None or not shipped["cpu_seconds"]:
            raise ValueError(f"{p['name']}: the shipped log.csv has no row at step {p['step']} to compare with")
        ratio = p["cpu_s"] / shipped["cpu_seconds"]
        m = manifests[p["name"]]
        rows.append({"model": p["name"], "probe_step": p["step"], "probe_cpu_s": round(p["cpu_s"], 2),
                     "shipped_cpu_s_at_step": shipped["cpu_seconds"], "ratio": round(ratio, 2),
                     "shipped_cpu_s": m["cpu_s"], "predicted_cpu_s": round(m["cpu_s"] * ratio, 1)})
    return {"rows": rows, "jobs": jobs,
            "shipped_wall_s": round(schedule({r["model"]: r["shipped_cpu_s"] for r in rows}, jobs), 1),
            "predicted_wall_s": round(schedule({r["model"]: r["predicted_cpu_s"] for r in rows}, jobs), 1)}


def estimate(chosen: list[str], jobs: int, probe_steps: int) -> dict:
    from seqviz.checkpoints import load
    from seqviz.checkpoints.recipes import RECIPES

    shipped = {n: load(n, device="cpu") for n in chosen}
    load_before, clock = _uptime(), time.perf_counter()
    print(f"probing {len(chosen)} models (first {probe_steps}+ steps each), {jobs} workers; "
          f"/proc/loadavg before: {load_before}", flush=True)
    with multiprocessing.get_context("spawn").Pool(jobs, initializer=_init_worker, maxtasksperchild=1) as pool:
        probes = pool.map(_probe, [(n, probe_step(RECIPES[n], probe_steps)) for n in chosen])
    result = predict(probes, {n: c.log for n, c in shipped.items()}, {n: c.manifest for n, c in shipped.items()},
                     jobs)
    result.update(probe_wall_s=round(time.perf_counter() - clock, 1), loadavg_before=load_before,
                  loadavg_after=_uptime())
    width = max(len(n) for n in chosen)
    print(f"{'model':{width}s}  step  CPU s here  shipped  ratio  shipped run CPU s  predicted CPU s")
    for r in result["rows"]:
        print(f"{r['model']:{width}s}  {r['probe_step']:4d}  {r['probe_cpu_s']:10.2f}  {r['shipped_cpu_s_at_step']:7.2f}"
              f"  {r['ratio']:5.2f}  {r['shipped_cpu_s']:17.0f}  {r['predicted_cpu_s']:15.0f}")
    print(f"make checkpoints on this machine, {jobs} one-thread workers: about "
          f"{result['predicted_wall_s'] / 60:.0f} min (the shipped files' machine: "
          f"{result['shipped_wall_s'] / 60:.0f} min of CPU, scheduled the same way); probes took "
          f"{result['probe_wall_s']:.0f} s; /proc/loadavg after: {result['loadavg_after']}", flush=True)
    out = ROOT / "benchmarks" / "results" / "checkpoints_estimate.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, list(result["rows"][0]))
        writer.writeheader()
        writer.writerows(result["rows"])
    return result


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
    summary = {"wall_budget_s": schedule({n: r.wall_budget_s for n, r in RECIPES.items()}, 2), "wall_budget_note": "the recipes' budgets, longest first on two "
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
    parser.add_argument("--estimate", action="store_true",
                        help="predict the run's time on this machine from its first steps; no weights kept")
    parser.add_argument("--probe-steps", type=int, default=50, help="steps per model for --estimate (default 50)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in RECIPES]
    if unknown:
        parser.error(f"unknown recipe(s) {unknown}; the recipes are {list(RECIPES)}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.probe_steps < 1:
        parser.error(f"--probe-steps must be at least 1, got {args.probe_steps}")
    chosen = sorted(args.names or RECIPES, key=lambda n: -RECIPES[n].wall_budget_s)  # longest first
    if args.estimate:
        estimate(chosen, args.jobs, args.probe_steps)
        return
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
