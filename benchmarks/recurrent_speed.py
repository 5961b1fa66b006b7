"""Forward + backward time of the from-scratch RNN/LSTM/GRU vs torch.nn's, and trace on vs off.

    python benchmarks/recurrent_speed.py              # B=32, T=100, H=128, input 128 (the budget's sizes)
    python benchmarks/recurrent_speed.py --quick      # tiny sizes, a CI smoke run
    python benchmarks/recurrent_speed.py --compile    # also the plain loop with a torch.compile'd cell

Prints a markdown table and writes ``benchmarks/results/recurrent_speed.csv``. Side by side, for each
model: ``torch.nn``'s module, ours on its default path (the fused fast path for LSTM and GRU), ours with
``return_trace=True``, and ours on the plain loop (``fused=False``, the reference a reader follows).
Each time is the median of several repeats after a warm-up. With one thread (``--threads 1``) it is
the CPU time of this process (``time.process_time``), which a busy shared machine disturbs less than the
wall clock; with more threads the wall clock (CPU time would count the threads' spin-waiting). Threads
are torch's default unless ``--threads``. Budgets (CONTRIBUTING.md, "Budgets"): scratch / built-in <= 1.5 and trace on / off
<= 1.1. Nothing here asserts: the numbers are for notes. The variants take turns (three rounds), so a
machine that gets busier hits them alike.

``--compile`` adds one attempt the plain/fused split makes possible: the plain LSTM loop whose cell
(everything after the recurrent product) is ``torch.compile``d, so that its forward and backward each
run as one generated kernel per step; the compile time is reported beside it.
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
    clock = time.process_time if torch.get_num_threads() == 1 else time.perf_counter
    times = []
    for i in range(warmup + repeats):
        x.grad = None
        if isinstance(module, nn.Module):
            module.zero_grad(set_to_none=True)
        start = clock()
        out = module(x, **kwargs)[0]
        out.sum().backward()
        if i >= warmup:
            times.append(clock() - start)
    return times


def _lstm_cell(z, c):
    """Everything of one LSTM step after the product: z (B, 4H) pre-activations, c (B, H) -> (h, c)."""
    z_i, z_f, z_g, z_o = z.chunk(4, dim=1)
    c = torch.sigmoid(z_f) * c + torch.sigmoid(z_i) * torch.tanh(z_g)
    return torch.sigmoid(z_o) * torch.tanh(c), c


def compiled_plain_lstm(model: LSTM):
    """``model``'s plain loop (one layer, one direction) with a torch.compile'd cell; returns
    ``(forward(x) -> (out,), compile seconds)``."""
    cell = torch.compile(_lstm_cell, dynamic=False, fullgraph=True)

    def forward(x):
        w_ih, w_hh, b_ih, b_hh = model.layer_weights(0)
        projected = torch.nn.functional.linear(x, w_ih, b_ih + b_hh)  # (B, T, 4H)
        h = c = x.new_zeros(x.shape[0], model.hidden_size)
        hs = []
        for t in range(x.shape[1]):
            h, c = cell(torch.addmm(projected[:, t], h, w_hh.t()), c)
            hs.append(h)
        return (torch.stack(hs, dim=1),)

    start = time.perf_counter()
    probe = torch.randn(2, 3, model.input_size, requires_grad=True)  # compiles forward and backward
    forward(probe)[0].sum().backward()
    return forward, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for a CI smoke run")
    parser.add_argument("--compile", action="store_true", help="also time the plain LSTM with a compiled cell")
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
        plain = scratch_cls(I, H, **({} if name == "RNN" else {"fused": False})).copy_from(builtin)
        variants = {"builtin": (builtin, {}), "scratch": (scratch, {}), "trace": (scratch, {"return_trace": True}),
                    "plain": (plain, {})}
        compile_s = None
        if args.compile and name == "LSTM":
            compiled, compile_s = compiled_plain_lstm(plain)
            variants["compiled"] = (compiled, {})
        times = {key: [] for key in variants}
        for _ in range(3):  # interleave so that drifts of the machine hit every variant alike
            for key, (module, kwargs) in variants.items():
                times[key] += fwd_bwd_times(module, x, repeats, warmup, **kwargs)
        ms = {key: 1e3 * statistics.median(t) for key, t in times.items()}
        row = {"model": name, "B": B, "T": T, "H": H, "input_size": I, "threads": torch.get_num_threads(),
               "builtin_ms": ms["builtin"], "scratch_ms": ms["scratch"], "scratch_trace_ms": ms["trace"],
               "plain_ms": ms["plain"], "scratch_vs_builtin": ms["scratch"] / ms["builtin"],
               "plain_vs_builtin": ms["plain"] / ms["builtin"], "trace_on_vs_off": ms["trace"] / ms["scratch"]}
        if args.compile:
            row["compiled_vs_builtin"] = ms["compiled"] / ms["builtin"] if "compiled" in ms else ""
            row["compile_s"] = compile_s if compile_s is not None else ""
        rows.append(row)
    print(f"forward+backward, B={B} T={T} H={H} input={I}, {torch.get_num_threads()} threads, "
          f"torch {torch.__version__}, ms ({'CPU' if torch.get_num_threads() == 1 else 'wall'})\n")
    print("| model | nn | scratch | scratch + trace | plain loop | scratch / nn | plain / nn | trace on / off |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['model']} | {r['builtin_ms']:.1f} | {r['scratch_ms']:.1f} | {r['scratch_trace_ms']:.1f} "
              f"| {r['plain_ms']:.1f} | {r['scratch_vs_builtin']:.2f}x | {r['plain_vs_builtin']:.2f}x "
              f"| {r['trace_on_vs_off']:.2f}x |")
    for r in rows:
        if r.get("compile_s") not in (None, ""):
            print(f"\n{r['model']}, plain loop with a torch.compile'd cell: {r['compiled_vs_builtin']:.2f}x nn "
                  f"(compiled in {r['compile_s']:.1f} s)")
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
