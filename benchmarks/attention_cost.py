"""Cost against sequence length: one self-attention block vs one GRU layer, side by side (chapter 8).

Times a forward pass and a training step (forward + backward) of a seqviz
TransformerEncoderLayer and a torch.nn.GRU of the same width at several lengths, records
the bytes a training step keeps for backward, fits ``t ~ c * n^p`` on log-log axes and
reports where the fitted curves cross. Writes ``benchmarks/results/attention_cost.csv``.

Usage: ``python benchmarks/attention_cost.py [--quick] [--device cpu|cuda] [--threads N]``
"""

from __future__ import annotations

import argparse
import sys

from _common import RESULTS, write_csv

import torch  # noqa: E402

import seqviz as sv  # noqa: E402
from seqviz.experiments import cost_vs_length  # noqa: E402
from seqviz.measure import activation_bytes, crossover, fit_power_law  # noqa: E402
from seqviz.models import make_block  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="few short lengths, one repeat")
    parser.add_argument("--device", default=None, help="cpu, cuda or mps (default: the best available)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for torch (default 1)")
    parser.add_argument("--out", default=str(RESULTS / "attention_cost.csv"))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    device = sv.pick_device(args.device)
    lengths = [16, 32, 64, 128] if args.quick else [32, 64, 128, 256, 512, 1024, 2048]
    min_time, repeats = (0.002, 1) if args.quick else (0.05, 3)
    rows = []
    for train in (False, True):
        mode = "training" if train else "forward"
        times = cost_vs_length(lengths, train=train, device=device, min_time=min_time, repeats=repeats,
                               progress=False)
        fits = {kind: fit_power_law(lengths, t) for kind, t in times.items()}
        cross = crossover(fits["attention"], fits["gru"])
        where = "none" if cross is None else f"{cross:.3g}" + ("" if lengths[0] <= cross <= lengths[-1] else
                                                               " (outside the measured range)")
        print(f"{mode}: exponent attention {fits['attention'][0]:.2f}, GRU {fits['gru'][0]:.2f}; "
              f"fitted curves cross at n = {where}")
        for kind, t in times.items():
            rows += [dict(device=str(device), threads=args.threads, mode=mode, model=kind, n=n, value=s, unit="s")
                     for n, s in zip(lengths, t)]
    for kind in ("attention", "gru"):
        torch.manual_seed(0)
        block = make_block(kind, 64).to(device)
        for n in lengths:
            x = torch.randn(8, n, 64, device=device)
            rows.append(dict(device=str(device), threads=args.threads, mode="saved for backward", model=kind, n=n,
                             value=activation_bytes(lambda: block(x)[0].pow(2).mean()), unit="bytes"))
    write_csv(args.out, rows)
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
