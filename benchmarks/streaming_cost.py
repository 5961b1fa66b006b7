"""Cost of one generated token against the context length: GRU vs Transformer decoder (chapter 10).

A GRU language model carries a fixed-size state: the next token costs the same at any
context. A decoder-only Transformer (seqviz.models.TransformerLM) either re-reads the
whole prefix for every token ("no cache") or keeps each layer's keys and values ("KV
cache") and computes one attention row. For each context length n this times one step
(batch 1, no grad; the median of repeats, via seqviz.measure.time_call) and records the
bytes the state or cache holds (seqviz.experiments.streaming_cost, as chapter 10).
Writes ``benchmarks/results/streaming_cost.csv``.

Usage: ``python benchmarks/streaming_cost.py [--quick] [--threads N]``
"""

from __future__ import annotations

import argparse

from _common import RESULTS, write_csv

import torch  # noqa: E402

from seqviz.experiments import streaming_cost  # noqa: E402
from seqviz.measure import fit_power_law, markdown_table  # noqa: E402


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short contexts, tiny model")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1: steadier on a shared CPU)")
    parser.add_argument("--out", default=str(RESULTS / "streaming_cost.csv"))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    d, layers, vocab = (16, 1, 32) if args.quick else (128, 2, 1000)
    contexts = [8, 16, 32] if args.quick else [64, 128, 256, 512, 1024, 2048]
    min_time, repeats = (0.001, 1) if args.quick else (0.02, 5)
    rows = [{**r, "threads": args.threads}
            for r in streaming_cost(contexts, d_model=d, num_layers=layers, vocab_size=vocab, min_time=min_time,
                                    repeats=repeats, progress=False)]
    print(f"per generated token (batch 1, d={d}, {layers} layers, {args.threads} thread(s), "
          f"torch {torch.__version__})\n")
    print(markdown_table(rows))
    for model in ("GRU", "Transformer (KV cache)", "Transformer (no cache)"):
        mine = [r for r in rows if r["model"] == model]
        p, _ = fit_power_law([r["context"] for r in mine], [r["ms_per_token"] for r in mine])
        grow = mine[-1]["ms_per_token"] / mine[0]["ms_per_token"]
        print(f"{model}: time per token ~ n^{p:.2f}; x{grow:.1f} from n={mine[0]['context']} "
              f"to n={mine[-1]['context']}")
    print(f"wrote {write_csv(args.out, rows)}")
    return rows


if __name__ == "__main__":
    main()
