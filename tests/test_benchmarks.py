"""Every benchmark runs in --quick mode and writes the CSV columns the report expects (no speed assertions)."""

import csv
import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

COLUMNS = {
    "streaming_cost": {"model", "context", "ms_per_token", "state_bytes"},
    "length_cost": {"model", "length", "ms_per_step", "saved_MiB"},
    "widget_latency": {"widget", "interaction", "median_ms", "max_ms", "budget_ms", "within_budget"},
    "recurrent_speed": {"model", "builtin_ms", "scratch_ms", "scratch_vs_builtin", "trace_on_vs_off"},
    "parallel_training": {"device", "threads", "model", "length", "batch", "tokens_per_s", "slowest_tokens_per_s",
                          "fastest_tokens_per_s"},
}


def _read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_benchmark_quick_writes_its_csv(name, tmp_path, capsys):
    module = importlib.import_module(name)
    out = tmp_path / f"{name}.csv"
    module.main(["--quick", "--out", str(out)])
    rows = _read(out)
    assert rows and COLUMNS[name] <= set(rows[0])
    assert "|" in capsys.readouterr().out  # a markdown table was printed


def test_streaming_rows_cover_the_three_ways_to_generate(tmp_path):
    import streaming_cost

    rows = streaming_cost.main(["--quick", "--out", str(tmp_path / "s.csv")])
    models = {r["model"] for r in rows}
    assert models == {"GRU", "Transformer (KV cache)", "Transformer (no cache)"}
    gru = {r["state_bytes"] for r in rows if r["model"] == "GRU"}
    cache = [r["state_bytes"] for r in rows if r["model"] == "Transformer (KV cache)"]
    assert len(gru) == 1 and cache == sorted(cache) and cache[0] < cache[-1]  # flat state vs a growing cache


def test_report_collects_every_csv(tmp_path, capsys):
    import report

    (tmp_path / "length_cost.csv").write_text("model,length,ms_per_step\nGRU,8,1.5\n")
    (tmp_path / "other.csv").write_text("a,b\nx,2\n")
    text = report.main(["--results", str(tmp_path)])
    assert "| GRU | 8 | 1.5 |" in text and "## other" in text
    assert (tmp_path / "REPORT.md").read_text() == text


def test_makefile_bench_runs_the_fast_benchmarks_and_the_report():
    makefile = (BENCH.parent / "Makefile").read_text()
    for name in ("length_cost", "streaming_cost", "widget_latency", "report.py", "bench-notebooks"):
        assert name in makefile
