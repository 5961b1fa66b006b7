"""Time and memory of one training step against the sequence length: GRU, LSTM, Transformer encoder (chapter 10).

Each model is one layer of width 64 (torch.nn.GRU, torch.nn.LSTM, and a seqviz
TransformerEncoderLayer under a causal mask; seqviz.experiments.step_cost, as chapter 10), batch 8,
loss = mean square of the output.
Time: the median seconds of forward + backward (seqviz.measure.time_call). Memory: the
bytes of the tensors autograd keeps for the backward pass (seqviz.measure.activation_bytes, parameters
excluded, each storage once),
i.e. the activation memory a training step adds on top of the weights; it is what
grows with the length, and it is measured the same way on any device (no allocator
statistics exist on the CPU). Writes ``benchmarks/results/length_cost.csv``.

Usage: ``python benchmarks/length_cost.py [--quick] [--threads N]``
"""

from __future__ import annotations

import argparse

from _common import RESULTS, write_csv

import torch  # noqa: E402

from seqviz.experiments import step_cost  # noqa: E402
from seqviz.measure import fit_power_law, markdown_table  # noqa: E402


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short lengths, one repeat")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=str(RESULTS / "length_cost.csv"))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    width, batch = (16, 2) if args.quick else (64, 8)
    lengths = [8, 16, 32] if args.quick else [32, 64, 128, 256, 512, 1024]
    min_time, repeats = (0.001, 1) if args.quick else (0.05, 3)
    rows = [{**r, "batch": batch, "width": width, "threads": args.threads}
            for r in step_cost(lengths, width=width, batch_size=batch, min_time=min_time, repeats=repeats,
                               progress=False)]
    print(f"training step (forward + backward), batch {batch}, width {width}, {args.threads} thread(s)\n")
    print(markdown_table(rows, ["model", "length", "ms_per_step", "saved_MiB"]))
    for kind in ("GRU", "LSTM", "Transformer"):
        mine = [r for r in rows if r["model"] == kind]
        pt, _ = fit_power_law([r["length"] for r in mine], [r["ms_per_step"] for r in mine])
        pm, _ = fit_power_law([r["length"] for r in mine], [r["saved_MiB"] for r in mine])
        print(f"{kind}: time ~ n^{pt:.2f}, saved memory ~ n^{pm:.2f}")
    print(f"wrote {write_csv(args.out, rows)}")
    return rows


if __name__ == "__main__":
    main()
