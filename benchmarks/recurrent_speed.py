"""Forward + backward time of the from-scratch RNN/LSTM/GRU vs torch.nn's, and trace on vs off.

    python benchmarks/recurrent_speed.py            # B=32, T=100, H=128, input 128 (the budget's sizes)
    python benchmarks/recurrent_speed.py --quick    # tiny sizes, a CI smoke run

Prints a markdown table and writes ``benchmarks/results/recurrent_speed.csv``. Each time is the
median of several repeats after a warm-up; threads are left at torch's default. Budgets (DESIGN.md):
scratch / built-in <= 1.5 and trace on / off <= 1.1. Nothing here asserts: the numbers are for notes.
The three variants take turns (three rounds), so a machine that gets busier hits them alike; on a
shared machine, ``--threads 1`` gives steadier ratios than two threads fighting for two cores.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from seqviz.models import GRU, LSTM, RNN  # noqa: E402

PAIRS = {"RNN": (RNN, nn.RNN), "LSTM": (LSTM, nn.LSTM), "GRU": (GRU, nn.GRU)}


def fwd_bwd_times(module, x, repeats, warmup, **kwargs):
    """Seconds of one forward + backward (loss = sum of the output), one per repeat."""
    times = []
    for i in range(warmup + repeats):
        x.grad = None
        module.zero_grad(set_to_none=True)
        start = time.perf_counter()
        out = module(x, **kwargs)[0]
        out.sum().backward()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for a CI smoke run")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's own)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "recurrent_speed.csv"))
    args = parser.parse_args(argv)
    if args.quick:
        B, T, H, I, repeats, warmup = 4, 10, 16, 8, args.repeats or 3, 1
    else:
        B, T, H, I, repeats, warmup = 32, 100, 128, 128, args.repeats or 5, 1
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    x = torch.randn(B, T, I, requires_grad=True)
    rows = []
    for name, (scratch_cls, builtin_cls) in PAIRS.items():
        builtin = builtin_cls(I, H, batch_first=True)
        scratch = scratch_cls(I, H).copy_from(builtin)
        # interleave so that drifts of the machine hit both sides alike
        t_builtin, t_off, t_on = [], [], []
        for _ in range(3):
            t_builtin += fwd_bwd_times(builtin, x, repeats, warmup)
            t_off += fwd_bwd_times(scratch, x, repeats, warmup)
            t_on += fwd_bwd_times(scratch, x, repeats, warmup, return_trace=True)
        t_builtin, t_off, t_on = (statistics.median(t) for t in (t_builtin, t_off, t_on))
        rows.append({"model": name, "B": B, "T": T, "H": H, "input_size": I, "threads": torch.get_num_threads(),
                     "builtin_ms": 1e3 * t_builtin, "scratch_ms": 1e3 * t_off, "scratch_trace_ms": 1e3 * t_on,
                     "scratch_vs_builtin": t_off / t_builtin, "trace_on_vs_off": t_on / t_off})
    print(f"forward+backward, B={B} T={T} H={H} input={I}, {torch.get_num_threads()} threads, torch {torch.__version__}\n")
    print("| model | nn (ms) | scratch (ms) | scratch + trace (ms) | scratch / nn | trace on / off |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['model']} | {r['builtin_ms']:.1f} | {r['scratch_ms']:.1f} | {r['scratch_trace_ms']:.1f} "
              f"| {r['scratch_vs_builtin']:.2f}x | {r['trace_on_vs_off']:.2f}x |")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nwrote {out}")
    return rows


if __name__ == "__main__":
    main()
