"""Training throughput against sequence length: an LSTM layer and a Transformer block of matched size (chapter 9b).

Every training step (forward and backward) gets the same number of tokens, cut into sequences of each length,
so the LSTM's batch shrinks as its chain of sequential steps grows, while the block does the tokens in a few wide
products. Both are ``torch.nn``'s layers (``seqviz.experiments.training_throughput``), timed with repeats; on
the CPU with every core by default. Writes ``benchmarks/results/parallel_training.csv`` and prints a markdown
table (tokens per second, median and range of the repeats, and the block-to-LSTM ratio of the medians).

Usage: ``python benchmarks/parallel_training.py [--quick] [--device cpu|cuda] [--threads N] [--width 128]``
"""

from __future__ import annotations

import argparse
import statistics

from _common import RESULTS, write_csv

import torch  # noqa: E402

import seqviz as sv  # noqa: E402
from seqviz.experiments import training_throughput  # noqa: E402
from seqviz.experiments.parallel import all_threads  # noqa: E402
from seqviz.measure import markdown_table  # noqa: E402


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="two short lengths, small width, three repeats")
    parser.add_argument("--device", default=None, help="cpu, cuda or mps (default: the best available)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: every core)")
    parser.add_argument("--width", type=int, default=None, help="layer width (default 128, quick 32)")
    parser.add_argument("--out", default=str(RESULTS / "parallel_training.csv"))
    args = parser.parse_args(argv)
    device = sv.pick_device(args.device)
    lengths = [16, 64] if args.quick else [16, 32, 64, 128, 256, 512, 1024]
    tokens = 256 if args.quick else 4096
    width = args.width or (32 if args.quick else 128)
    threads = args.threads or all_threads()
    found = training_throughput(lengths, tokens_per_step=tokens, width=width, device=device, threads=threads,
                                repeats=3 if args.quick else 7, min_time=0.005 if args.quick else 0.05,
                                progress=False)
    rows = []
    for r in found:
        per_second = [r["batch"] * r["length"] / s for s in r["seconds"]]
        rows.append(dict(device=str(device), threads=r["threads"] or "", model=r["kind"], width=width,
                         parameters=r["parameters"], length=r["length"], batch=r["batch"],
                         tokens_per_s=r["tokens_per_s"], slowest_tokens_per_s=min(per_second),
                         fastest_tokens_per_s=max(per_second)))
    write_csv(args.out, rows)
    table = []
    for n in lengths:
        lstm, block = (next(r for r in rows if r["model"] == kind and r["length"] == n) for kind in ("LSTM", "attention"))
        table.append({"length": n, "batch": lstm["batch"], "lstm": lstm["tokens_per_s"], "block": block["tokens_per_s"],
                      "ratio": block["tokens_per_s"] / lstm["tokens_per_s"]})
    print(f"{device}, {threads if device.type == 'cpu' else ''} threads, width {width}, {tokens} tokens per step")
    print(markdown_table(table, {"length": "length", "batch": "batch", "lstm": ("LSTM tokens/s", ",.0f"),
                                 "block": ("Transformer block tokens/s", ",.0f"), "ratio": ("block / LSTM", ".2f")}))
    print(f"wrote {len(rows)} rows to {args.out}")
    return rows


if __name__ == "__main__":
    main()
