"""scripts/gpu_check.py covers every model, and runs its code path on the CPU."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import gpu_check  # noqa: E402


def test_every_model_has_a_gpu_check():
    assert gpu_check.model_classes() <= set(gpu_check.factories(2, 3, 4))


def test_gpu_check_runs_every_model_on_cpu(capsys):
    assert gpu_check.main(["--device", "cpu", "--quick"]) == 0
    out = capsys.readouterr().out
    for name in gpu_check.model_classes():
        assert f"| {name} |" in out and "False" not in out


def test_without_a_gpu_it_says_so_and_succeeds(capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert gpu_check.main([]) == 0
    assert "No CUDA GPU" in capsys.readouterr().out


def test_gpu_check_prints_the_cpu_ratio_column(capsys):
    """The CUDA run's CPU-vs-device comparison, exercised on the CPU (chapter 10)."""
    assert gpu_check.main(["--device", "cpu", "--quick", "--compare-cpu"]) == 0
    out = capsys.readouterr().out
    assert "CPU / device" in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "x |" in line]
    assert len(rows) >= len(gpu_check.model_classes())
