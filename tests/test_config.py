import importlib
import os
import subprocess
import sys

import pytest
import torch

import seqviz as sv
from seqviz import config


def test_scaled_follows_quick_mode(monkeypatch):
    monkeypatch.setattr(config, "QUICK", False)
    assert config.scaled(2000, quick=50) == 2000
    monkeypatch.setattr(config, "QUICK", True)
    assert config.scaled(2000, quick=50) == 50 and config.scaled(2000) == 200 and config.scaled(5) == 1
    with pytest.raises(ValueError, match="explicit quick value"):
        config.scaled("abc")


def test_quick_flag_reads_the_environment():
    code = "import seqviz; print(seqviz.QUICK)"
    for value, expected in (("1", "True"), ("0", "False"), ("", "False"), ("yes", "True")):
        env = {**os.environ, "SEQVIZ_QUICK": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == expected


def test_pick_device():
    assert sv.pick_device("cpu") == torch.device("cpu")
    assert sv.pick_device().type in ("cpu", "cuda", "mps")
    with pytest.raises(ValueError, match="one of"):
        sv.pick_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="not available"):
            sv.pick_device("cuda")


def test_seed_everything_repeats_numbers():
    sv.seed_everything(7)
    a = torch.randn(3)
    sv.seed_everything(7)
    assert torch.equal(a, torch.randn(3))
    with pytest.raises(ValueError, match="non-negative int"):
        sv.seed_everything(-1)


def test_import_is_cheap_and_lazy():
    out = subprocess.run([sys.executable, "-c", "import sys, seqviz; print('torch' in sys.modules)"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert importlib.import_module("seqviz").models.RNN is not None
