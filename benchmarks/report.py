"""Collect every ``benchmarks/results/*.csv`` into one markdown report, ``benchmarks/results/REPORT.md``.

Run last by ``make bench``; prints the report too, so it can be pasted into notes.
Each CSV becomes one table (its first columns, numbers to 3 significant digits).

Usage: ``python benchmarks/report.py [--results DIR]``
"""

from __future__ import annotations

import argparse
import csv
import platform
from pathlib import Path

from _common import RESULTS

import torch  # noqa: E402

from seqviz.measure import markdown_table  # noqa: E402

TITLES = {
    "recurrent_speed": "From-scratch vs built-in recurrent layers, forward + backward (budgets: scratch/nn <= 1.5x, "
                       "trace on/off <= 1.1x)",
    "length_cost": "Training step vs sequence length: time and activation memory saved for backward",
    "streaming_cost": "One generated token vs context length (batch 1)",
    "attention_cost": "Chapter 8: self-attention block vs GRU layer",
    "widget_latency": "Live widget update latency (budget: median <= 100 ms)",
    "notebook_times": "Notebook execution time (budgets: quick <= 30 s, full <= 180 s)",
    "live_latency": "Live views in JupyterLab + Chromium (make live-check): key press or selection to new picture "
                    "(budget: median <= 400 ms)",
}
ORDER = list(TITLES)


def _number(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def table(path: Path, max_rows: int = 60) -> str:
    with path.open() as f:
        rows = [{k: _number(v) for k, v in r.items()} for r in csv.DictReader(f)]
    if not rows:
        return "(empty)"
    text = markdown_table(rows[:max_rows])
    if len(rows) > max_rows:
        text += f"\n\n({len(rows) - max_rows} more rows in {path.name})"
    return text


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default=str(RESULTS))
    args = parser.parse_args(argv)
    folder = Path(args.results)
    paths = sorted(folder.glob("*.csv"), key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else 99, p.stem))
    parts = [f"# Benchmarks\n\n{platform.platform()}, {platform.processor() or platform.machine()}, "
             f"torch {torch.__version__}, {torch.get_num_threads()} default threads. Every ratio is measured side "
             f"by side in one run; times are medians of repeats on a shared machine.\n"]
    for path in paths:
        parts.append(f"## {TITLES.get(path.stem, path.stem)}\n\n`{path.name}`\n\n{table(path)}\n")
    report = "\n".join(parts)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "REPORT.md").write_text(report)
    print(report)
    print(f"wrote {folder / 'REPORT.md'}")
    return report


if __name__ == "__main__":
    main()
