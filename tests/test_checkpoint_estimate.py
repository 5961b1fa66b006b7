"""``make checkpoints-estimate``: the schedule and the prediction it prints (scripts/make_checkpoints.py)."""

import importlib.util
from pathlib import Path

import pytest

from seqviz.checkpoints.recipes import RECIPES

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("make_checkpoints", ROOT / "scripts" / "make_checkpoints.py")
mc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mc)


def test_schedule_puts_the_longest_first_onto_the_freest_worker():
    assert mc.schedule({"a": 10, "b": 6, "c": 5, "d": 4}, 2) == 14  # 10 | 6, then 5 -> 10 | 11, then 4 -> 14 | 11
    assert mc.schedule({"a": 3, "b": 3}, 1) == 6
    assert mc.schedule({"a": 7}, 4) == 7


def test_probe_steps_are_rounded_up_to_a_logged_row():
    r = RECIPES["charlm-lstm-s"]
    assert mc.probe_step(r, 50) % r.eval_every == 0 and mc.probe_step(r, 50) >= 50
    assert mc.probe_step(r, 1) == r.eval_every
    assert mc.probe_step(r, 10 ** 6) == r.steps


def test_prediction_scales_each_model_by_its_own_ratio():
    logs = {"a": [{"step": 0, "cpu_seconds": 0}, {"step": 50, "cpu_seconds": 5.0}],
            "b": [{"step": 0, "cpu_seconds": 0}, {"step": 50, "cpu_seconds": 2.0}]}
    manifests = {"a": {"cpu_s": 100.0}, "b": {"cpu_s": 40.0}}
    probes = [{"name": "a", "step": 50, "cpu_s": 10.0, "wall_s": 10.0},
              {"name": "b", "step": 50, "cpu_s": 2.0, "wall_s": 2.0}]
    out = mc.predict(probes, logs, manifests, jobs=2)
    assert [r["predicted_cpu_s"] for r in out["rows"]] == [200.0, 40.0]
    assert out["shipped_wall_s"] == 100.0 and out["predicted_wall_s"] == 200.0
    assert mc.predict(probes, logs, manifests, jobs=1)["predicted_wall_s"] == 240.0


def test_a_probe_without_a_matching_log_row_is_a_clear_error():
    with pytest.raises(ValueError, match="no row at step 25"):
        mc.predict([{"name": "a", "step": 25, "cpu_s": 1.0, "wall_s": 1.0}],
                   {"a": [{"step": 0, "cpu_seconds": 0}, {"step": 50, "cpu_seconds": 5.0}]}, {"a": {"cpu_s": 1.0}})
