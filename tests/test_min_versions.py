"""constraints-min.txt pins the floors that requirements.txt and pyproject.toml declare (make test-min runs them)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ("torch", "numpy", "matplotlib", "plotly", "ipywidgets", "tqdm")
# the lowest CPU wheel of torch that these machines can install; the declared floor is older (constraints-min.txt)
UNREACHABLE = {"torch": "2.13.0"}


def _release(version):
    parts = [int(p) for p in version.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def _floors(text, sep):
    return {name: version for name, version in re.findall(rf"^\s*\"?([A-Za-z][\w\-]*){sep}([\d.]+)", text, re.MULTILINE)}


def test_min_constraints_are_the_declared_floors():
    required = _floors((ROOT / "requirements.txt").read_text(), ">=")
    declared = _floors((ROOT / "pyproject.toml").read_text(), ">=")
    pinned = _floors((ROOT / "constraints-min.txt").read_text(), "==")
    for name in CORE:
        assert required[name] == declared[name], f"{name}: requirements.txt >={required[name]}, pyproject >={declared[name]}"
        want = UNREACHABLE.get(name, required[name])
        assert _release(pinned[name]) == _release(want), f"{name}: constraints-min.txt =={pinned[name]}, floor {want}"
        assert _release(pinned[name]) >= _release(required[name])
    assert set(pinned) == set(CORE)
